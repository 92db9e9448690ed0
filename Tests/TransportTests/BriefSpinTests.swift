import Glibc
import Testing
import Transport

@Suite struct BriefSpinTests {
  /// Whether a spin with a budget spins on this machine: never with one CPU online.
  private var spins: Bool { sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 }

  @Test func anAnswerThatIsThereIsTakenAtOnce() {
    var spin = BriefSpin(budget: .microseconds(50))
    var checks = 0
    let value = spin.wait(until: { checks += 1; return true }) { 42 }
    #expect(value == 42)
    #expect(checks == (spins ? 1 : 0))
  }

  @Test func aWaitThatRanLongStopsSpinningUntilOneEndsSoon() {
    // A budget long enough that a wait with nothing to do ends within it even on a loaded
    // machine, and no rest after a late yield, so that only the waits' lengths decide.
    let budget = Duration.milliseconds(20)
    var spin = BriefSpin(budget: budget, restAfterContention: .zero)
    var checks = 0
    let never = { () -> Bool in checks += 1; return false }
    // Spins, finds nothing, then "sleeps" longer than spinning could have saved.
    spin.wait(until: never) { busy(for: budget * 3) }
    #expect(spins ? checks > 0 : checks == 0)
    checks = 0
    spin.wait(until: never) {}
    #expect(checks == 0, "after a long wait, the next one sleeps at once")
    // That wait ended soon, so the next one spins again.
    spin.wait(until: never) {}
    #expect(spins ? checks > 0 : checks == 0)
  }

  @Test func theBudgetIsReadAsWholeMicrosecondsWithinBounds() {
    #expect(BriefSpin.budget(parsing: "20") == .microseconds(20))
    #expect(BriefSpin.budget(parsing: " +20\n") == .microseconds(20))
    #expect(BriefSpin.budget(parsing: "0") == .zero)
    #expect(BriefSpin.budget(parsing: "-5") == .zero)
    #expect(BriefSpin.budget(parsing: "99999999") == .microseconds(1_000))
    #expect(BriefSpin.budget(parsing: "99999999999999999999999") == .microseconds(1_000))
    for text in ["", "abc", "5ms", "1 2", "-", "٣"] { #expect(BriefSpin.budget(parsing: text) == nil, "\(text)") }
  }

  @Test func aBlockThatThrowsPassesItsErrorOn() {
    struct Refused: Error {}
    var spin = BriefSpin()
    #expect(throws: Refused.self) { try spin.wait(until: { true }) { () throws(Refused) in throw Refused() } }
  }

  /// Runs the CPU for `duration`: a stand-in for a peer that takes that long to answer.
  private func busy(for duration: Duration) {
    let end = ContinuousClock.now + duration
    while ContinuousClock.now < end {}
  }
}
