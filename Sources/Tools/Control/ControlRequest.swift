import Bulkhead
import BulkheadDistribution

/// What a control command line asks of a detached composition: the host's
/// `--control APP VERB ...`, which `./compose.sh up`, `ps`, `top`, `logs`, `kill`, `stop`,
/// `cont`, `slow`, `move` and `down` run.
///
/// ```swift
/// try ControlRequest(parsing: ["--control", "timers", "kill", "timers", "1"])
/// // ControlRequest(app: "timers", verb: .signal(.kill, boundary: "timers", index: 1))
/// ```
struct ControlRequest: Equatable {
  enum Verb: Equatable {
    /// Start the host detached, with these options besides `--app`.
    case up(hostOptions: [String])
    case ps
    case top
    case logs(boundary: String?, follow: Bool)
    case signal(Wire.WorkerSignal, boundary: String, index: Int)
    case slow(boundary: String, milliseconds: Int)
    case move(boundary: String, to: Residence)
    case down
    /// Send actions: one written on the command line, or each line of a file, `times` over.
    case send(ActionSource, times: Int)
    case state(boundary: String?, json: Bool)
  }

  /// The app whose composition the command acts on; nil for every composition that is up
  /// (`--control --every ps|top`).
  let app: String?
  let verb: Verb

  /// The most times `send --repeat` sends: each answer carries the state after its action.
  static let repeatLimit = 10_000

  static func usage(program: String) -> String {
    "usage: \(program) --control APP up [--placement FILE] | ps | top | logs [BOUNDARY] [-f] "
      + "| kill|stop|cont BOUNDARY [INDEX] | slow BOUNDARY MS | move BOUNDARY host|worker | send ACTION|--file FILE "
      + "[--repeat N] | state [BOUNDARY] [--json] | down; \(program) --control --every ps|top"
  }

  /// Reads `arguments` when they start with `--control`; nil when they do not. The error
  /// names what is wrong, then the usage, or, for a person at `compose.sh` (`frontDoor`),
  /// where its help is.
  init?(parsing arguments: [String], program: String, frontDoor: Bool = false) throws(DistributionError) {
    guard arguments.first == "--control" else { return nil }
    func wrong(_ problem: String) -> DistributionError {
      frontDoor
        ? .usage("\(problem) (\"./compose.sh help\" shows what each command takes)")
        : .usage("\(problem)\n\(Self.usage(program: program))")
    }
    var rest = arguments.dropFirst()
    if rest.first == "--every" {
      guard rest.count == 2, let verb = rest.last, ["ps", "top"].contains(verb) else {
        throw wrong("every composition is looked at by ps or top alone; got \(rest.dropFirst().joined(separator: " "))")
      }
      (app, self.verb) = (nil, verb == "ps" ? .ps : .top)
      return
    }
    guard let app = rest.popFirst(), !app.hasPrefix("-") else { throw wrong("--control needs an app") }
    guard let verb = rest.popFirst() else { throw wrong("--control \(app) needs a command") }
    let operands = Array(rest)
    func count(_ allowed: ClosedRange<Int>, _ shape: String) throws(DistributionError) {
      guard allowed.contains(operands.count) else {
        throw wrong("\(verb) takes \(shape); got \(operands.isEmpty ? "nothing" : operands.joined(separator: " "))")
      }
    }
    func number(_ text: String, what: String) throws(DistributionError) -> Int {
      guard let value = Int(text), value >= 0 else { throw wrong("\(what) must be a whole number of 0 or more; got \"\(text)\"") }
      return value
    }
    /// A BOUNDARY and `flag`, both optional, in either order.
    func boundaryAnd(_ flag: String) throws(DistributionError) -> (boundary: String?, flag: Bool) {
      let names = operands.filter { $0 != flag }
      guard names.count <= 1, operands.count - names.count <= 1, names.allSatisfy({ !$0.hasPrefix("-") }) else {
        throw wrong("\(verb) takes a BOUNDARY and \(flag), both optional; got \(operands.joined(separator: " "))")
      }
      return (names.first, operands.count > names.count)
    }
    self.app = app
    switch verb {
    case "up":
      self.verb = .up(hostOptions: operands)
    case "ps", "top", "down":
      try count(0...0, "nothing")
      self.verb = verb == "ps" ? .ps : verb == "top" ? .top : .down
    case "logs":
      let (boundary, follow) = try boundaryAnd("-f")
      self.verb = .logs(boundary: boundary, follow: follow)
    case "kill", "stop", "cont":
      try count(1...2, "a BOUNDARY and an INDEX (0 if left out)")
      let signal: Wire.WorkerSignal = verb == "kill" ? .kill : verb == "stop" ? .stop : .cont
      let index = try operands.count == 2 ? number(operands[1], what: "the worker's INDEX") : 0
      self.verb = .signal(signal, boundary: operands[0], index: index)
    case "slow":
      try count(2...2, "a BOUNDARY and a delay in MS")
      self.verb = .slow(boundary: operands[0], milliseconds: try number(operands[1], what: "the delay MS"))
    case "move":
      try count(2...2, "a BOUNDARY and where to move it, host or worker")
      guard let residence = Residence(rawValue: operands[1]) else {
        throw wrong("move takes host or worker after the BOUNDARY; got \"\(operands[1])\"")
      }
      self.verb = .move(boundary: operands[0], to: residence)
    case "send":
      var operands = operands
      var times = 1
      if let flag = operands.firstIndex(of: "--repeat") {
        guard operands.indices.contains(flag + 1), let value = Int(operands[flag + 1]), (1...Self.repeatLimit).contains(value) else {
          throw wrong("--repeat takes how many times to send, 1 to \(Self.repeatLimit)")
        }
        times = value
        operands.removeSubrange(flag...flag + 1)
      }
      if operands.first == "--file" {
        guard operands.count == 2 else { throw wrong("send takes --file and a FILE of actions, one a line") }
        self.verb = .send(.file(operands[1]), times: times)
      } else {
        guard !operands.isEmpty else { throw wrong("send takes an ACTION, or --file FILE") }
        // The shell may have split an action with spaces in it: it is one action all the same.
        self.verb = .send(.text(operands.joined(separator: " ")), times: times)
      }
    case "state":
      let (boundary, json) = try boundaryAnd("--json")
      self.verb = .state(boundary: boundary, json: json)
    default:
      throw wrong("unknown command \"\(verb)\"")
    }
  }
}
