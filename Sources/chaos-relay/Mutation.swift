import Transport
import TransportTestSupport

/// A way to damage one frame on its way through the relay.
enum Mutation: String, CaseIterable, Sendable {
  /// Flips a few random bits of the payload.
  case flip
  /// Cuts the payload short (the header says the new, shorter length).
  case truncate
  /// Appends random bytes to the payload.
  case extend
  /// Changes the kind byte.
  case kind
  /// Replaces the payload with random bytes of a random length.
  case replace
  /// Writes a header promising more bytes than follow, then closes that connection.
  case cut
  /// Does not forward the frame: the peer waits for something that never comes.
  case drop
  /// Stops forwarding in this direction for good while the connection stays open: a peer
  /// that hangs.
  case stall

  /// The kinds used when `--kinds` is not given: those that damage what arrives. `drop` and
  /// `stall` only make a peer wait, which a host without request deadlines cannot survive, so
  /// they are asked for by name.
  static let standard: [Mutation] = [.flip, .truncate, .extend, .kind, .replace, .cut]

  /// Whether the mutation needs a payload byte to work on.
  var needsPayload: Bool { self == .flip || self == .truncate }
}

/// What the relay does with one frame.
enum Delivery: Equatable {
  /// Forward this frame, whole.
  case forward(Frame)
  /// Write these bytes (a header and less payload than it promises), then close.
  case cut([UInt8])
  /// Forward nothing.
  case drop
  /// Forward nothing, now or later, in this direction.
  case stall
}


/// Decides, frame by frame, whether and how to damage one direction of one connection. Each
/// direction has a generator of its own, derived from the seed and the direction's number, so
/// its decisions depend only on its own frames and not on how threads interleave.
struct Mutator {
  private var generator: SeededGenerator
  private let rate: Double
  private let kinds: [Mutation]
  /// The bits `flip` flips (byte × 8 + bit), or nil for random ones.
  private let bits: [Int]?
  /// Frames at the start of the direction that pass untouched (the greeting, say).
  private let untouched: Int

  init(seed: UInt64, lane: UInt64, rate: Double, kinds: [Mutation], bits: [Int]?, untouched: Int) {
    var mixer = SeededGenerator(seed: seed ^ (lane &* 0xD1B5_4A32_D192_ED03))
    generator = SeededGenerator(seed: mixer.next())
    self.rate = rate
    self.kinds = kinds
    self.bits = bits
    self.untouched = untouched
  }

  /// What to do with the frame numbered `index` (from 0) in this direction, and the
  /// mutation, if any, with a note of what exactly it did (for reducing a failure).
  mutating func deliver(_ frame: Frame, index: Int) -> (Delivery, (mutation: Mutation, detail: String)?) {
    // One roll per frame whatever happens, so decisions stay aligned with frame numbers.
    let roll = Double(generator.next() >> 11) / Double(1 << 53)
    guard index >= untouched, roll < rate, !kinds.isEmpty else { return (.forward(frame), nil) }
    let applicable = frame.payload.isEmpty ? kinds.filter { !$0.needsPayload } : kinds
    guard let mutation = applicable.randomElement(using: &generator) else { return (.forward(frame), nil) }
    let (delivery, detail) = apply(mutation, to: frame)
    return (delivery, (mutation, "kind \(frame.kind), \(frame.payload.count) bytes: \(detail)"))
  }

  private mutating func apply(_ mutation: Mutation, to frame: Frame) -> (Delivery, String) {
    var frame = frame
    let detail: String
    switch mutation {
    case .flip:
      let bits =
        self.bits?.filter { $0 < frame.payload.count * 8 }
        ?? (0..<Int.random(in: 1...8, using: &generator)).map { _ in
          Int.random(in: 0..<(frame.payload.count * 8), using: &generator)
        }
      for bit in bits { frame.payload[bit / 8] ^= 1 << UInt8(bit % 8) }
      detail = "flipped bits \(bits.map { "\($0 / 8).\($0 % 8)" }.joined(separator: ", ")) (byte.bit)"
    case .truncate:
      frame.payload.removeLast(Int.random(in: 1...frame.payload.count, using: &generator))
      detail = "cut to \(frame.payload.count) bytes"
    case .extend:
      frame.payload += randomBytes(count: Int.random(in: 1...64, using: &generator))
      detail = "extended to \(frame.payload.count) bytes"
    case .kind:
      frame.kind ^= UInt8.random(in: 1...255, using: &generator)
      detail = "kind now \(frame.kind)"
    case .replace:
      frame.payload = randomBytes(count: Int.random(in: 0...(frame.payload.count + 32), using: &generator))
      detail = "replaced by \(frame.payload.count) random bytes"
    case .cut:
      // Promise 1…64 bytes more than the payload holds, and send at most what it holds.
      let extra = Int.random(in: 1...64, using: &generator)
      let promised = Frame(kind: frame.kind, payload: frame.payload + [UInt8](repeating: 0, count: extra))
      var bytes: [UInt8] = []
      FramedConnection.append(promised, to: &bytes)
      let sent = Int.random(in: 0...frame.payload.count, using: &generator)
      return (.cut(Array(bytes.prefix(Frame.headerSize + sent))), "header promises \(promised.payload.count) bytes, \(sent) follow")
    case .drop:
      return (.drop, "not forwarded")
    case .stall:
      return (.stall, "lane stopped")
    }
    return (.forward(frame), detail)
  }

  private mutating func randomBytes(count: Int) -> [UInt8] {
    (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
  }
}
