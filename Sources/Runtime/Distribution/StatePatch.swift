/// The change between two encodings of a state: the bytes that differ, between a prefix and a
/// suffix that both encodings share. One field changed in a large state is a patch of about
/// that field's size.
///
/// ```swift
/// let patch = StatePatch(from: oldBytes, to: newBytes)
/// try patch.applied(to: oldBytes) == newBytes  // true
/// ```
public struct StatePatch: Codable, Sendable, Equatable {
  /// How many leading bytes are kept.
  public var prefix: Int
  /// How many trailing bytes are kept.
  public var suffix: Int
  /// What goes between them.
  public var middle: [UInt8]

  /// The patch that turns `old` into `new`.
  public init(from old: [UInt8], to new: [UInt8]) {
    let limit = min(old.count, new.count)
    var prefix = 0
    while prefix < limit, old[prefix] == new[prefix] { prefix += 1 }
    var suffix = 0
    while suffix < limit - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] {
      suffix += 1
    }
    self.prefix = prefix
    self.suffix = suffix
    self.middle = Array(new[prefix..<(new.count - suffix)])
  }

  /// The encoding this patch makes of `old`; throws when `old` is too short to be the base
  /// the patch was made from.
  public func applied(to old: [UInt8]) throws(DistributionError) -> [UInt8] {
    guard prefix >= 0, suffix >= 0, prefix + suffix <= old.count else {
      throw .protocolViolation(
        "a patch keeps \(prefix) + \(suffix) bytes of a state encoded in \(old.count)")
    }
    var result = [UInt8]()
    result.reserveCapacity(prefix + middle.count + suffix)
    result += old[..<prefix]
    result += middle
    result += old[(old.count - suffix)...]
    return result
  }

  /// The wire size of the patch's content.
  public var byteCount: Int { middle.count }
}
