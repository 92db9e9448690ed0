/// Which worker of a pool serves a `forEach` element, by its id: evenly spread, and the same
/// worker for an id in every run and in every process that asks (no per-process hash seed),
/// so that a host and a worker that places elements of its own agree.
///
/// An integer id is multiplied by 2⁶⁴/φ (Fibonacci hashing): ids taken in turn, or evenly
/// spaced, fall on the workers in turn for any pool size, which a remainder would not do for
/// spacings that share a factor with the pool size. Any other id is hashed from its encoding
/// (FNV-1a, then MurmurHash3's finaliser, so that every byte reaches every bit). The high bits
/// of the result, scaled to the pool, pick the worker.
enum PoolSpread {
  /// The index, among `workers`, of the worker that serves the element whose id is `id`,
  /// encoded as `encoded`.
  static func index(of id: any Sendable, encoded: [UInt8], workers: Int) -> Int {
    let spread =
      if let integer = id as? any BinaryInteger {
        UInt64(truncatingIfNeeded: integer) &* 0x9e37_79b9_7f4a_7c15
      } else {
        mixed(fnv1a(encoded))
      }
    return Int(UInt64(workers).multipliedFullWidth(by: spread).high)
  }

  private static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
    bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
  }

  /// MurmurHash3's 64-bit finaliser: the last bytes FNV-1a takes barely reach the high bits
  /// that pick the worker.
  private static func mixed(_ hash: UInt64) -> UInt64 {
    var hash = hash
    hash ^= hash >> 33
    hash &*= 0xff51_afd7_ed55_8ccd
    hash ^= hash >> 33
    hash &*= 0xc4ce_b9fe_1a85_ec53
    return hash ^ (hash >> 33)
  }
}
