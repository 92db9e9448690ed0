import Transport

/// The messages between the host and a worker. The control connection carries one request and
/// its reply at a time, synchronously inside the host's reducer; the effects connection carries
/// everything that happens later, in both directions.
enum Wire {
  static let controlRequestKind: UInt8 = 0x20
  static let controlReplyKind: UInt8 = 0x21
  static let effectKind: UInt8 = 0x22

  /// A state version that means "nothing": a request based on it replaces the worker's copy.
  static let emptyVersion: UInt64 = 0

  /// Host → worker, on the control connection.
  enum Request: Codable, Equatable {
    /// Bring `slot` from `baseVersion` up to date with `patch` if any, then run `action`.
    case run(slot: [UInt8], baseVersion: UInt64, patch: StatePatch?, action: [UInt8])
    /// Forget the state of `slot`.
    case drop(slot: [UInt8])
  }

  /// Worker → host, on the control connection.
  enum Reply: Codable, Equatable {
    /// The action ran: the slot is now at `version`, changed by `patch` if it changed, and
    /// the child's effects are `effect`.
    case ran(version: UInt64, patch: StatePatch?, effect: PortableEffect)
    /// The worker's copy is not at the version the request was based on.
    case stale(version: UInt64)
    case dropped
    case failed(String)
  }

  /// Either way, on the effects connection.
  enum EffectMessage: Codable, Equatable {
    /// Host → worker: start the effect body `run`.
    case start(run: UInt64)
    /// Host → worker: cancel `run`.
    case cancel(run: UInt64)
    /// Host → worker: the host has processed action `sequence`.
    case processed(sequence: UInt64)
    /// Worker → host: `run` sent an action, numbered `sequence`.
    case action(run: UInt64, sequence: UInt64, bytes: [UInt8])
    /// Worker → host: `run` ended.
    case finished(run: UInt64)
  }

  static func frame(_ request: Request) throws -> Frame {
    Frame(kind: controlRequestKind, payload: try BinaryEncoder().encode(request))
  }

  static func frame(_ reply: Reply) throws -> Frame {
    Frame(kind: controlReplyKind, payload: try BinaryEncoder().encode(reply))
  }

  static func frame(_ message: EffectMessage) throws -> Frame {
    Frame(kind: effectKind, payload: try BinaryEncoder().encode(message))
  }

  static func decode<Message: Decodable>(
    _: Message.Type, from frame: Frame, kind: UInt8
  ) throws(DistributionError) -> Message {
    guard frame.kind == kind else {
      throw .protocolViolation("expected a frame of kind \(kind), got \(frame.kind)")
    }
    do {
      return try BinaryDecoder().decode(Message.self, from: frame.payload)
    } catch {
      throw .protocolViolation("a \(Message.self) frame does not decode: \(error)")
    }
  }
}
