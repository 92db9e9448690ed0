#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A reading of the system's monotonic clock (`CLOCK_MONOTONIC`), in nanoseconds: one vDSO call,
/// no allocation, and the same clock in every process of the machine, so that a host and its
/// workers agree on what it says. The timings and the trace take one at each end of a crossing.
///
/// ```swift
/// let start = MonotonicInstant.now
/// let elapsed = MonotonicInstant.now.nanoseconds(since: start)
/// ```
public struct MonotonicInstant: Sendable, Hashable, Comparable {
  /// Nanoseconds since an arbitrary point fixed at boot.
  public let nanoseconds: UInt64

  init(nanoseconds: UInt64) {
    self.nanoseconds = nanoseconds
  }

  /// The clock now.
  ///
  /// ```swift
  /// let start = MonotonicInstant.now
  /// ```
  public static var now: MonotonicInstant {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return MonotonicInstant(nanoseconds: UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec))
  }

  /// Nanoseconds from `earlier` to this instant; zero if `earlier` is later.
  ///
  /// ```swift
  /// trip.end.nanoseconds(since: trip.start)
  /// ```
  public func nanoseconds(since earlier: MonotonicInstant) -> UInt64 {
    nanoseconds >= earlier.nanoseconds ? nanoseconds - earlier.nanoseconds : 0
  }

  /// Whether `lhs` was read before `rhs`.
  public static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
    lhs.nanoseconds < rhs.nanoseconds
  }
}
