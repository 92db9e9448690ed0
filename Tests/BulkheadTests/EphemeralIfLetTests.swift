import Bulkhead
import BulkheadTesting
import Testing

/// A parent that records whether it still sees the alert when handling the alert's actions,
/// and that can replace the alert with another one.
private struct Confirmation: Reducer {
  struct State: Equatable {
    var alert: AlertState<Action.Alert>?
    var sawAlert: [Bool] = []
  }
  enum Action: Equatable, Sendable {
    case alert(PresentationAction<Alert>)
    enum Alert: Equatable, Sendable { case confirm, askAgain, askAnotherThing }
  }

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .alert(.presented(.confirm)), .alert(.dismiss):
        state.sawAlert.append(state.alert != nil)
      case .alert(.presented(.askAgain)):
        state.alert = .question  // equal-looking, but a new alert
      case .alert(.presented(.askAnotherThing)):
        state.alert = AlertState { TextState("Something else?") }
      }
      return .none
    }
    .ifLet(\.alert, action: Action.alert)
  }
}

extension AlertState where Action == Confirmation.Action.Alert {
  fileprivate static var question: Self {
    AlertState {
      TextState("Sure?")
    } actions: {
      ButtonState(action: .confirm) { TextState("Yes") }
    }
  }
}

@MainActor
@Suite struct EphemeralIfLetTests {
  @Test func theParentSeesTheAlertWhileHandlingItsActionThenItIsCleared() async {
    let store = TestStore(initialState: Confirmation.State(alert: .question)) { Confirmation() }
    await store.send(.alert(.presented(.confirm))) {
      $0.sawAlert = [true]
      $0.alert = nil
    }
    let dismissing = TestStore(initialState: Confirmation.State(alert: .question)) { Confirmation() }
    await dismissing.send(.alert(.dismiss)) {
      $0.sawAlert = [true]
      $0.alert = nil
    }
  }

  @Test func anAlertTheParentPutInPlaceOfTheOldOneStays() {
    let store = Store(initialState: Confirmation.State(alert: .question)) { Confirmation() }
    store.send(.alert(.presented(.askAnotherThing)))
    #expect(store.state.alert == AlertState { TextState("Something else?") })
    let old = store.state.alert
    store.send(.alert(.presented(.askAgain)))
    #expect(store.state.alert == .question)
    #expect(store.state.alert?.id != old?.id)
  }
}
