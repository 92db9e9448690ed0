@testable import Bulkhead
@testable import BulkheadDistribution
import TestThreads
import Testing

/// Failures `chaos-relay` found, each reduced to the smallest input that shows it.
@Suite(.onItsOwnThread) struct ChaosReproductionTests {
  private struct Undecodable: Error {}

  /// Found by `twoCountersSurviveDamagedFrames` with BULKHEAD_CHAOS_SEED=777 and
  /// BULKHEAD_CHAOS_FRAMES=200000 (SIGSEGV after about 33 s): the relay seeded 1403 flipped
  /// bits 1.6, 12.0, 3.6, 9.1 and 9.5 of a 15-byte reply from counter2's worker (control
  /// frame 22, worker→host), which then still decoded, with an effect `.send` whose action
  /// bytes do not decode. The host's `RemoteBoundary.exchange` (RemoteBoundary.swift:184)
  /// rebuilds that effect with `Effect.init(_:decode:proxy:)` (PortableEffect.swift); the
  /// decode error thrown through that `rethrows` initializer returns to a bad address and the
  /// host died instead of failing the action. The initializer now `throws` rather than
  /// `rethrows`.
  @Test func anEffectActionThatDoesNotDecodeIsAnError() {
    #expect(throws: Undecodable.self) {
      _ = try Effect<Int>(PortableEffect.send([0xFF]), decode: { _ in throw Undecodable() }) { _ in .none }
    }
  }
}
