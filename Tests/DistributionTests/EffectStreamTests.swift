import Bulkhead
@testable import BulkheadDistribution
import BulkheadTesting
import Examples
import Foundation
import Synchronization
import Testing

/// A worker's effect streams its actions to the host without waiting for each to be
/// processed; the host still processes them in order, and drops those of an effect it has
/// cancelled.
// Five minutes: a plain store's stream hops to the main actor for every action, and in a full
// parallel run every @MainActor test of the process shares it (the cancelled stream's 778
// actions were seen to take 114 s there, and 0.2 s alone).
@MainActor
@Suite(.timeLimit(.minutes(5))) struct EffectStreamTests {
  @Test func aWorkerRunsAheadOfASlowHostByAtMostItsWindow() async throws {
    let trips = EffectTrips(hostWorkPerAction: .microseconds(100))
    let composition = try Composition(
      root: Payload(), placement: Placement(parsing: "store\n", file: "payload.placement"),
      command: .executable(workerExecutable, app: "payload"), instrument: trips)
    defer { composition.shutdown() }
    let store = Store(initialState: Payload.State()) { composition.compose(Payload()) }
    let count = 1_000
    await store.send(.store(.stream(count: count))).finish()
    #expect(store.state.store.streamed == count)
    #expect(store.state.streamedSeen == count)

    let all = trips.all
    try #require(all.count == count)
    // Ahead: actions arrived while the one before them was still being processed.
    let ahead = (1..<count).count { all[$0].arrived < all[$0 - 1].processed }
    #expect(ahead > count / 2)
    // By at most the window: action k is written only once action k - window was acknowledged,
    // which the host does after it has processed it.
    let window = WorkerEffects.window
    #expect((window..<count).allSatisfy { all[$0].arrived > all[$0 - window].processed })
  }

  @Test func twoStreamsOnOneChildInterleaveAndEveryActionCounts() async throws {
    let composition = try Composition(
      root: Payload(), placement: Placement(parsing: "store\n", file: "payload.placement"),
      command: .executable(workerExecutable, app: "payload"))
    defer { composition.shutdown() }
    let store = Store(initialState: Payload.State()) { composition.compose(Payload()) }
    // Both effects run at once on the same child: outcomes computed ahead chain across them,
    // and their acknowledgements can cross.
    let first = store.send(.store(.stream(count: 600)))
    let second = store.send(.store(.stream(count: 600)))
    await first.finish()
    await second.finish()
    #expect(store.state.store.streamed == 1_200)
    #expect(store.state.streamedSeen == 1_200)
    store.send(.store(.bump))
    #expect(store.state.store.bumps == 1)
  }

  @Test func aTestStoreReceivesAStreamedEffectsActionsOneByOne() async throws {
    let composition = try Composition(
      root: Payload(), placement: Placement(parsing: "store\n", file: "payload.placement"),
      command: .executable(workerExecutable, app: "payload"))
    defer { composition.shutdown() }
    let store = TestStore(initialState: Payload.State()) { composition.compose(Payload()) }
    await store.send(.store(.stream(count: 3)))
    for count in 1...3 {
      await store.receive(.store(.streamed)) {
        $0.store.streamed = count
        $0.streamedSeen = count
      }
    }
    await store.finish()
  }

  @Test func aWorkerKilledInTheMiddleOfAStreamIsReplacedAndTheNextStreamFlows() async throws {
    let events = Events()
    let killer = KillAt(processed: 100)
    let composition = try Composition(
      root: Payload(), placement: Placement(parsing: "store\n", file: "payload.placement"),
      command: .executable(workerExecutable, app: "payload"), instrument: killer, onEvent: events.append)
    defer { composition.shutdown() }
    killer.kill = { composition.killWorker(of: "store") }
    let store = Store(initialState: Payload.State()) { composition.compose(Payload()) }

    await store.send(.store(.stream(count: 100_000))).finish()
    #expect(await events.first { if case .effectsLost = $0 { true } else { false } } == .effectsLost(boundary: "store", count: 1))
    let streamed = store.state.store.streamed
    #expect(streamed >= 100 && streamed < 100_000)
    #expect(store.state.streamedSeen == streamed)

    await store.send(.store(.stream(count: 3 * WorkerEffects.window))).finish()
    #expect(store.state.store.streamed == streamed + 3 * WorkerEffects.window)
    #expect(store.state.streamedSeen == store.state.store.streamed)
  }

  @Test func anActionReachesTheHostEvenWhileItsEffectBlocksItsThread() async throws {
    let composition = try Composition(
      root: Streamer(), placement: Placement(parsing: "child\n", file: "streamer.placement"),
      command: .loopback { Streamer() })
    defer { composition.shutdown() }
    let store = Store(initialState: Streamer.State()) { composition.compose(Streamer()) }
    // The effect waits, without suspending, until the parent has seen its first action: that
    // action must not wait for the effect to suspend before it is written.
    await store.send(.child(.handshake)).finish()
    #expect(store.state.child.handshake == .released)
  }

  @Test func theActionsOfACancelledStreamAreDroppedAndTheWindowIsFreedForTheNext() async throws {
    let local = Store(initialState: Streamer.State()) { Streamer() }
    let composition = try Composition(
      root: Streamer(), placement: Placement(parsing: "child\n", file: "streamer.placement"),
      command: .loopback { Streamer() })
    defer { composition.shutdown() }
    let remote = Store(initialState: Streamer.State()) { composition.compose(Streamer()) }

    for store in [local, remote] {
      store.send(.stopAt(10))
      // Cancelled by the parent at its tenth action, long before the stream's end.
      await store.send(.child(.stream(count: 100_000))).finish()
      store.send(.stopAt(nil))
      // More than a window's worth: none of the dropped actions is still counted against it.
      await store.send(.child(.stream(count: 3 * WorkerEffects.window))).finish()
    }
    #expect(remote.state == local.state)
    #expect(remote.state.seen == 10 + 3 * WorkerEffects.window)
    #expect(remote.state.child.streamed == remote.state.seen)
  }
}

/// Every effect action the host processed, in order; each one holds the host for
/// `hostWorkPerAction` first, as a slow parent would.
private final class EffectTrips: BoundaryInstrument {
  private let trips = Mutex<[EffectActionTrip]>([])
  private let hostWorkPerAction: Duration

  init(hostWorkPerAction: Duration) { self.hostWorkPerAction = hostWorkPerAction }

  var all: [EffectActionTrip] { trips.withLock { $0 } }

  func effectActionProcessed(_ action: EffectActionTrip) {
    trips.withLock { $0.append(action) }
    let end = ContinuousClock.now + hostWorkPerAction
    while ContinuousClock.now < end {}
  }
}

/// Kills the worker once the host has processed `processed` effect actions.
private final class KillAt: BoundaryInstrument {
  private let count = Mutex(0)
  private let processed: Int
  private let action = Mutex<(@Sendable () -> Void)?>(nil)

  init(processed: Int) { self.processed = processed }

  var kill: @Sendable () -> Void {
    get {
      let kill = action.withLock { $0 }
      return kill ?? {}
    }
    set { action.withLock { $0 = newValue } }
  }

  func effectActionProcessed(_ action: EffectActionTrip) {
    let seen = count.withLock { count -> Int in
      count += 1
      return count
    }
    guard seen == processed else { return }
    kill()
  }
}

/// A parent that cancels its child's stream once it has seen `stopAt` of its actions.
private struct Streamer: Reducer {
  struct State: Equatable, Codable, Sendable {
    var child = Child.State()
    var seen = 0
    var stopAt: Int?
  }

  enum Action: Equatable, Codable, Sendable {
    case child(Child.Action)
    case stopAt(Int?)
  }

  var body: some Reducer<State, Action> {
    Scope(state: \.child, action: Action.child) { Child() }
    Reduce { state, action in
      switch action {
      case .child(.streamed):
        state.seen += 1
        return state.seen == state.stopAt ? .send(.child(.stop)) : .none
      case .child(.handshakeSent):
        Streamer.Child.parentSawHandshake.signal()
        return .none
      case let .stopAt(count):
        state.stopAt = count
        return .none
      case .child:
        return .none
      }
    }
  }

  struct Child: Reducer {
    struct State: Equatable, Codable, Sendable {
      var streamed = 0
      var handshake: Handshake?
    }

    enum Handshake: Equatable, Codable, Sendable { case released, stuck }

    enum Action: Equatable, Codable, Sendable {
      case stream(count: Int)
      case streamed
      case stop
      case handshake
      case handshakeSent
      case handshakeEnded(Handshake)
    }

    /// Signalled by the parent, in the host, when it sees `handshakeSent`; the worker is a
    /// thread of this process.
    static let parentSawHandshake = DispatchSemaphore(value: 0)

    private enum CancelID { case stream }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case let .stream(count):
        return .run { send in
          for _ in 0..<count { await send(.streamed) }
        }
        .cancellable(id: CancelID.stream)
      case .streamed:
        state.streamed += 1
        return .none
      case .stop:
        return .cancel(id: CancelID.stream)
      case .handshake:
        return .run { send in
          await send(.handshakeSent)
          // Only a bound on a broken run: the parent sees the action when the main actor,
          // which every @MainActor test of the process shares, comes to it (10 s was passed
          // under load).
          let seen = Self.parentSawHandshake.wait(timeout: .now() + 60) == .success
          await send(.handshakeEnded(seen ? .released : .stuck))
        }
      case .handshakeSent:
        return .none
      case let .handshakeEnded(handshake):
        state.handshake = handshake
        return .none
      }
    }
  }
}
