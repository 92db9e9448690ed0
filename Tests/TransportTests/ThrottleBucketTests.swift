import Testing
import Transport

#if canImport(Glibc)
  import Glibc
#endif

/// The host's CPU throttle's account of one worker, as a value: which signal each tick sends.
@Suite struct ThrottleBucketTests {
  private let millisecond: Int64 = 1_000_000

  @Test func aWorkerPastItsShareIsStoppedAndContinuedOnceTheShareHasCaughtUp() {
    var bucket = ThrottleBucket(percent: 20, used: 0, tick: .milliseconds(20), window: .milliseconds(100))
    // 20 ms banked, 4 ms a tick at 20%.
    #expect(bucket.tick(used: 15 * millisecond) == nil)
    #expect(bucket.tick(used: 40 * millisecond) == SIGSTOP)
    #expect(bucket.budget == -12 * millisecond)
    // Stopped, it uses nothing; three ticks bring the bucket back to zero.
    #expect(bucket.tick(used: 40 * millisecond) == nil)
    #expect(bucket.tick(used: 40 * millisecond) == nil)
    #expect(bucket.tick(used: 40 * millisecond) == SIGCONT)
    #expect(!bucket.stopped)
  }

  @Test func anIdleWorkerBanksAtMostOneWindowAtItsShare() {
    var bucket = ThrottleBucket(percent: 50, used: 0, tick: .milliseconds(20), window: .milliseconds(100))
    for _ in 0..<100 { #expect(bucket.tick(used: 0) == nil) }
    #expect(bucket.budget == 50 * millisecond)
    // A burst of its banked 50 ms and the tick's 10 ms passes; one more millisecond does not.
    #expect(bucket.tick(used: 60 * millisecond) == nil)
    #expect(bucket.tick(used: 71 * millisecond) == SIGSTOP)
  }

  @Test func overAStretchOfBusyTicksTheWorkerRunsItsShare() {
    var bucket = ThrottleBucket(percent: 20, used: 0, tick: .milliseconds(20), window: .milliseconds(100))
    var used: Int64 = 0
    for _ in 0..<500 {
      // Running, it uses the whole tick; stopped, nothing.
      if !bucket.stopped { used += 20 * millisecond }
      _ = bucket.tick(used: used)
    }
    // 500 ticks of 20 ms are 10 s: a fifth is 2 s, with the first window banked.
    #expect(used <= 2_000 * millisecond + 20 * millisecond + 20 * millisecond)
    #expect(used >= 1_900 * millisecond)
  }
}
