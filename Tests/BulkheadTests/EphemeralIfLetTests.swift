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

/// The same for a confirmation dialog: one the parent puts up in place of the old one, even
/// an equal-looking one, stays up.
private struct ClearAll: Reducer {
  struct State: Equatable {
    var dialog: ConfirmationDialogState<Action.Dialog>?
  }
  enum Action: Equatable, Sendable {
    case dialog(PresentationAction<Dialog>)
    enum Dialog: Equatable, Sendable { case clear, askAgain }
  }

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      if case .dialog(.presented(.askAgain)) = action { state.dialog = .clearAll }
      return .none
    }
    .ifLet(\.dialog, action: Action.dialog)
  }
}

extension ConfirmationDialogState where Action == ClearAll.Action.Dialog {
  fileprivate static var clearAll: Self {
    ConfirmationDialogState(titleVisibility: .visible) {
      TextState("Clear everything?")
    } actions: {
      ButtonState(role: .destructive, action: .clear) { TextState("Clear") }
    }
  }
}

@MainActor
@Suite struct EphemeralDialogTests {
  @Test func aDialogTheParentPutInPlaceOfTheOldOneStaysAndAnAnsweredOneGoes() {
    let store = Store(initialState: ClearAll.State(dialog: .clearAll)) { ClearAll() }
    let old = store.state.dialog
    store.send(.dialog(.presented(.askAgain)))
    #expect(store.state.dialog == .clearAll)
    #expect(store.state.dialog?.id != old?.id)
    store.send(.dialog(.presented(.clear)))
    #expect(store.state.dialog == nil)
  }
}
