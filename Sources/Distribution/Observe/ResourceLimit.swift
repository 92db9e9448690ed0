/// A limit a placement set on a worker, with its figure: what `limitExceeded` and
/// `RestartReason.exceededLimit` name. Only memory ends a worker: CPU is throttled, not
/// ended, and a descriptor past `files` fails the call that asked for it inside the worker.
///
/// ```swift
/// "\(ResourceLimit.memory(bytes: 128 << 20))"  // "memory limit (128 MB)"
/// ```
public enum ResourceLimit: Sendable, Equatable, Codable, CustomStringConvertible {
  /// `memory SIZE`, in bytes.
  case memory(bytes: Int)

  public var description: String {
    switch self {
    case let .memory(bytes): "memory limit (\(Self.size(bytes)))"
    }
  }

  /// `bytes` in the largest binary unit that divides it: "128 MB", "1 GB", "640 KB".
  static func size(_ bytes: Int) -> String {
    for (unit, shift) in [("GB", 30), ("MB", 20), ("KB", 10)] where bytes % (1 << shift) == 0 {
      return "\(bytes >> shift) \(unit)"
    }
    return "\(bytes) bytes"
  }
}
