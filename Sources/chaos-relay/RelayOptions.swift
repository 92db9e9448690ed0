/// The command line of `chaos-relay`.
struct RelayOptions: Equatable {
  static let usage = """
    usage: chaos-relay --seed N --rate R [--kinds K,...] [--bits B.b,...] [--after K] [--lanes L,...]
                       [--recompute-checksums] [--verbose] -- WORKER [ARGS...]
      --seed N     seeds the mutations: the same seed damages the same frames the same way
      --rate R     probability (0...1) that a frame is damaged
      --kinds K,…  mutations to choose from: \(Mutation.allCases.map(\.rawValue).joined(separator: ", "))
                   (default: \(Mutation.standard.map(\.rawValue).joined(separator: ",")))
      --bits B.b,… have flip flip exactly these bits (byte.bit, as --verbose prints them)
                   instead of 1-8 random ones; those past the end of a payload are left alone
      --after K    leave the first K frames of each direction of each connection untouched
      --lanes L,…  damage only these lanes: control-to-worker, control-to-host,
                   effects-to-worker, effects-to-host (default: all four)
      --recompute-checksums
                   give a damaged frame the checksum of its new bytes, so that the damage
                   reaches the decoders instead of ending the connection at the frame
      --verbose    print one line per mutation on standard error
    Started by a host in place of WORKER, it starts WORKER itself and relays every frame between
    the two, damaging some.
    """

  var seed: UInt64
  var rate: Double
  var kinds: [Mutation] = Mutation.standard
  /// The bits `flip` flips, as indices (byte × 8 + bit); nil for random ones.
  var bits: [Int]?
  var untouched = 0
  var lanes: Set<Lane> = Set(Lane.all)
  var isVerbose = false
  /// Whether a damaged frame carries its new bytes' checksum rather than the original's.
  var recomputesChecksums = false
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
      case "--recompute-checksums":
        recomputesChecksums = true
        continue
      case "--seed", "--rate", "--kinds", "--bits", "--after", "--lanes":
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
      case "--bits":
        bits = try value.split(separator: ",").map { position throws(UsageError) in
          let parts = position.split(separator: ".", omittingEmptySubsequences: false)
          guard parts.count == 2, let byte = Int(parts[0]), let bit = Int(parts[1]), byte >= 0, (0..<8).contains(bit)
          else { throw UsageError("--bits wants byte.bit positions such as 3.1, not \"\(position)\"") }
          return byte * 8 + bit
        }
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
