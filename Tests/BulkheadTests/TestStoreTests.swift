import Bulkhead
import BulkheadTesting
import Testing

private struct Feature: Reducer {
  struct State: Equatable {
    var count = 0
    var title = "Counter"
  }
  enum Action: Equatable, Sendable {
    case increment
    case incrementLater
    case response(Int)
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .increment:
      state.count += 1
      return .none
    case .incrementLater:
      return .run { send in await send(.response(42)) }
    case let .response(value):
      state.count = value
      return .none
    }
  }
}

@MainActor
@Suite struct TestStoreTests {
  @Test func aWrongExpectationShowsADiffOfExpectedAndActualState() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    await expectFailure(
      containing: [
        "A state change does not match expectation",
        "−   count: 2,", "+   count: 1,", "(Expected: −, Actual: +)",
      ]
    ) {
      await store.send(.increment) { $0.count = 2 }
    }
  }

  @Test func anUnassertedChangeFails() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    await expectFailure(containing: ["State was not expected to change"]) {
      await store.send(.increment)
    }
  }

  @Test func receivesByActionByCaseAndByCaseWithPayload() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    await store.send(.incrementLater)
    await store.receive(.response(42)) { $0.count = 42 }
    await store.send(.incrementLater)
    await store.receive(Feature.Action.response)
    await store.send(.incrementLater)
    await store.receive(Feature.Action.response, 42)
  }

  @Test func receivingTheWrongActionFails() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    await store.send(.incrementLater)
    await expectFailure(containing: ["Received unexpected action", ".response(42)", ".response(1)"]) {
      await store.receive(.response(1)) { $0.count = 42 }
    }
  }

  @Test func receivingWhenNoEffectCanSendFailsAtOnce() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    await expectFailure(containing: ["Expected to receive .increment", "no effect is running"]) {
      await store.receive(.increment)
    }
  }

  @Test func sendingWithUnreceivedActionsFails() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    await store.send(.incrementLater)
    await expectFailure(containing: ["Must handle 1 received action before sending", ".response(42)"]) {
      await store.send(.increment) { $0.count = 43 }
    }
  }

  @Test func droppingTheStoreWithUnreceivedActionsFails() async {
    await expectFailure(containing: ["The store received 1 unexpected action", ".response(42)"]) {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      await store.send(.incrementLater)
      await store.finish()
    }
  }

  @Test func skippingReceivedActionsAcceptsTheirChanges() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    await store.send(.incrementLater)
    await store.finish()
    await store.skipReceivedActions()
    await store.send(.increment) { $0.count = 43 }
  }

  @Test func nonExhaustiveStoresCheckOnlyWhatTheTestStates() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    store.exhaustivity = .off
    await store.send(.increment)
    await store.send(.incrementLater)
    await store.send(.incrementLater)
    await store.receive(.response(42)) { $0.count = 42 }
    await expectFailure(containing: ["A state change does not match expectation"]) {
      await store.send(.increment) { $0.title = "Changed" }
    }
  }
}
