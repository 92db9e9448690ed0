/// The command line of `chaos-relay`.
struct RelayOptions: Equatable {
  static let usage = """
    usage: chaos-relay --seed N --rate R [--kinds K,...] [--after K] [--verbose] -- WORKER [ARGS...]
      --seed N     seeds the mutations: the same seed damages the same frames the same way
      --rate R     probability (0...1) that a frame is damaged
      --kinds K,…  mutations to choose from: \(Mutation.allCases.map(\.rawValue).joined(separator: ", "))
                   (default: \(Mutation.standard.map(\.rawValue).joined(separator: ",")))
      --after K    leave the first K frames of each direction of each connection untouched
      --lanes L,…  damage only these lanes: control-to-worker, control-to-host,
                   effects-to-worker, effects-to-host (default: all four)
      --verbose    print one line per mutation on standard error
    Started by a host in place of WORKER, it starts WORKER itself and relays every frame between
    the two, damaging some.
    """

  var seed: UInt64
  var rate: Double
  var kinds: [Mutation] = Mutation.standard
  var untouched = 0
  var lanes: Set<Lane> = Set(Lane.all)
  var isVerbose = false
  var worker: String
  var workerArguments: [String]

  /// Parses `arguments` (without the program name); the error says what is wrong.
  init(parsing arguments: [String]) throws(UsageError) {
    guard let separator = arguments.firstIndex(of: "--") else { throw UsageError("missing \"--\" before the worker") }
    let options = arguments[..<separator]
    let command = arguments[(separator + 1)...]
    guard let worker = command.first else { throw UsageError("no worker executable after \"--\"") }
    self.worker = worker
    workerArguments = Array(command.dropFirst())
    var seed: UInt64?
    var rate: Double?
    var iterator = options.makeIterator()
    while let option = iterator.next() {
      switch option {
      case "--verbose":
        isVerbose = true
        continue
      case "--seed", "--rate", "--kinds", "--after", "--lanes":
        break
      default:
        throw UsageError("unknown option \"\(option)\"")
      }
      guard let value = iterator.next() else { throw UsageError("\(option) needs a value") }
      switch option {
      case "--seed":
        guard let number = UInt64(value) else { throw UsageError("--seed wants an unsigned integer, not \"\(value)\"") }
        seed = number
      case "--rate":
        guard let number = Double(value), (0...1).contains(number) else {
          throw UsageError("--rate wants a probability between 0 and 1, not \"\(value)\"")
        }
        rate = number
      case "--after":
        guard let number = Int(value), number >= 0 else { throw UsageError("--after wants a count, not \"\(value)\"") }
        untouched = number
      case "--lanes":
        lanes = []
        for name in value.split(separator: ",") {
          guard let lane = Lane.all.first(where: { $0.name == name }) else {
            throw UsageError("no lane called \"\(name)\"; there are \(Lane.all.map(\.name).joined(separator: ", "))")
          }
          lanes.insert(lane)
        }
      default:
        kinds = []
        for name in value.split(separator: ",") {
          guard let kind = Mutation(rawValue: String(name)) else {
            throw UsageError("no mutation called \"\(name)\"; there are \(Mutation.allCases.map(\.rawValue).joined(separator: ", "))")
          }
          kinds.append(kind)
        }
        guard !kinds.isEmpty else { throw UsageError("--kinds names no mutation") }
      }
    }
    guard let seed else { throw UsageError("--seed is required") }
    guard let rate else { throw UsageError("--rate is required") }
    self.seed = seed
    self.rate = rate
  }
}

/// A command line that does not parse, and why.
struct UsageError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
