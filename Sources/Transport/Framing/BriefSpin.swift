#if canImport(Glibc)
  import Glibc
#endif

/// Waits for a peer that usually answers within microseconds by checking for its answer,
/// yielding the CPU in between, before sleeping in the kernel.
///
/// A thread that sleeps and is woken from another core pays for the wake-up: on the virtual
/// machines measured here ~15 µs each way, more than a remote action's whole work, because
/// an idle virtual CPU halts and needs an interrupt to run again. Checking for a few tens of
/// microseconds first keeps the core running while the peer answers; yielding in between
/// lets a peer that shares the core answer.
///
/// It costs about its budget per wait at most (plus one yield that came back late), and
/// usually nothing:
/// - it spins only while waits end within twice `budget`: after one that ran longer it sleeps
///   at once, until a wait ends soon again, so an idle connection costs no CPU (twice, because
///   a wait that sleeps includes the wake-up it would have saved);
/// - it spins only on a machine with more than one CPU online;
/// - a yield that came back late means another busy thread shares the core: a runnable thread
///   waits behind it, where a sleeping one is woken ahead of it, so spinning stops, and stays
///   off for `restAfterContention`.
///
/// ```swift
/// var spin = BriefSpin()
/// let frame = try spin.wait(until: connection.readAvailable) { try connection.receive() }
/// ```
package struct BriefSpin: Sendable {
  /// How long a wait spins before it sleeps: 50 µs, or what `BULKHEAD_SPIN_MICROSECONDS`
  /// says (`budget(parsing:)`).
  package static let budget: Duration = {
    guard let text = getenv("BULKHEAD_SPIN_MICROSECONDS") else { return .microseconds(50) }
    return budget(parsing: String(cString: text)) ?? .microseconds(50)
  }()

  /// The budget `text` asks for in whole microseconds: 0 or less turns spinning off, and more
  /// than 1,000 counts as 1,000, because a budget near the time between a peer's messages
  /// keeps a thread spinning for good. Nil when `text` is not a whole number.
  package static func budget(parsing text: String) -> Duration? {
    let words = text.split(whereSeparator: \.isWhitespace)
    guard words.count == 1, let word = words.first else { return nil }
    let isNegative = word.first == "-"
    let digits = word.first == "-" || word.first == "+" ? word.dropFirst() : word[...]
    guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
    if isNegative { return .zero }
    // Too many digits for an `Int` is still a number, and more than enough.
    return .microseconds(min(Int(digits) ?? 1_000, 1_000))
  }

  /// A yield that took this long gave the core to a thread that kept it for a time slice (the
  /// scheduler's are 0.75 ms and up), not to a peer that answered; in nanoseconds.
  private static let contended: UInt64 = 200_000
  /// How long spinning stays off after a late yield.
  package static let restAfterContention = Duration.milliseconds(100)
  private static let hasSpareCPU = sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1

  // Nanoseconds of the monotonic clock, not `Duration`s: a spin reads the clock after every
  // yield, and `Duration` arithmetic is 128-bit.
  private let budget: UInt64
  private let restAfterContention: UInt64
  private var isWorthwhile = true
  private var restingUntil: UInt64 = 0

  /// A spin of `budget` per wait, off for `restAfterContention` after a late yield.
  package init(budget: Duration = Self.budget, restAfterContention: Duration = Self.restAfterContention) {
    self.budget = Self.nanoseconds(budget)
    self.restAfterContention = Self.nanoseconds(restAfterContention)
  }

  /// Spins until `isReady`, within `budget`, then runs `block`, which may sleep.
  package mutating func wait<Result, Failure: Error>(
    until isReady: () -> Bool, then block: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    guard budget > 0, Self.hasSpareCPU else { return try block() }
    let begun = spin(until: isReady)
    let result = try block()
    end(begun)
    return result
  }

  /// A wait that `spin(until:)` began.
  package struct Begun: Sendable {
    fileprivate let start: UInt64
    /// Whether the spin found the answer: when not, the waiter sleeps some other way, and
    /// tells `end(_:)` when it woke.
    package let isReady: Bool
  }

  /// The first half of `wait`, for a waiter that sleeps some other way than in a block:
  /// spins until `isReady`, within `budget`, unless spinning does not pay now. `end(_:)`
  /// must be told when the whole wait ended, so that a slow peer is not spun for again.
  package mutating func spin(until isReady: () -> Bool) -> Begun {
    let start = Self.now()
    guard budget > 0, Self.hasSpareCPU, isWorthwhile, start >= restingUntil else { return Begun(start: start, isReady: false) }
    var previous = start
    while true {
      if isReady() { return Begun(start: start, isReady: true) }
      sched_yield()
      let now = Self.now()
      if now &- previous >= Self.contended {
        restingUntil = now &+ restAfterContention
        return Begun(start: start, isReady: false)
      }
      if now &- start >= budget { return Begun(start: start, isReady: false) }
      previous = now
    }
  }

  /// Ends a wait that `spin(until:)` began: the next one spins only if this one ended soon.
  package mutating func end(_ begun: Begun) {
    isWorthwhile = Self.now() &- begun.start < budget &* 2
  }

  private static func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
  }

  private static func nanoseconds(_ duration: Duration) -> UInt64 {
    let (seconds, attoseconds) = duration.components
    guard seconds >= 0, attoseconds >= 0 else { return 0 }
    return UInt64(clamping: seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
  }
}
