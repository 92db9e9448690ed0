import Bulkhead
import BulkheadTesting
import Foundation
import Testing

/// A destination that counts, runs a timer, and can dismiss itself from an effect.
private struct Sheet: Reducer {
  struct State: Equatable, Codable, Identifiable {
    var id = 0
    var ticks = 0
  }
  enum Action: Equatable, Codable, Sendable { case tick, start, close }

  @Dependency(\.continuousClock) var clock
  @Dependency(\.dismiss) var dismiss

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .tick:
      state.ticks += 1
      return .none
    case .start:
      return .run { send in
        while true {
          try await clock.sleep(for: .seconds(1))
          await send(.tick)
        }
      }
    case .close:
      return .run { _ in await dismiss() }
    }
  }
}

/// An enum destination written by hand: an alert, a dialog whose actions are of the alert's
/// type, or a sheet with its reducer.
private struct Destination: Reducer {
  enum State: Equatable {
    case alert(AlertState<Presenter.Choice>)
    case dialog(ConfirmationDialogState<Presenter.Choice>)
    case sheet(Sheet.State)
  }
  enum Action: Equatable, Sendable {
    case alert(Presenter.Choice)
    case dialog(Presenter.Choice)
    case sheet(Sheet.Action)
  }

  var body: some Reducer<State, Action> {
    Scope(state: State.sheet, action: Action.sheet) { Sheet() }
  }
}

private struct Presenter: Reducer {
  struct State: Equatable {
    @PresentationState var destination: Destination.State?
    @PresentationState var sheet: Sheet.State?
    @PresentationState var alert: AlertState<Choice>?
    @PresentationState var dialog: ConfirmationDialogState<Choice>?
    var log: [String] = []
  }
  enum Action: Equatable, Sendable {
    case destination(PresentationAction<Destination.Action>)
    case sheet(PresentationAction<Sheet.Action>)
    case alert(PresentationAction<Choice>)
    case dialog(PresentationAction<Choice>)
    case present(id: Int)
    case presentAlertAndDialog
    case replaceOnDismiss
  }
  enum Choice: Equatable, Codable, Sendable { case confirm, again }

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .sheet(.presented(.tick)):
        state.log.append("parent sees \(state.sheet?.ticks ?? -1) ticks")
      case .sheet(.dismiss):
        state.log.append("parent sees \(state.sheet == nil ? "no sheet" : "the sheet") on dismiss")
        if state.log.contains("replace on dismiss") { state.sheet = Sheet.State(id: 8) }
      case .sheet:
        break
      case let .present(id):
        state.sheet = Sheet.State(id: id)
      case .presentAlertAndDialog:
        state.alert = AlertState { TextState("Sure?") }
        state.dialog = ConfirmationDialogState(titleVisibility: .visible) { TextState("Really?") }
      case .alert(.presented(.again)):
        state.alert = AlertState { TextState("Once more?") }
      case .destination(.presented(.alert(.again))):
        state.destination = .sheet(Sheet.State(id: 5))
      case .destination:
        break
      case .alert, .dialog:
        break
      case .replaceOnDismiss:
        state.log.append("replace on dismiss")
      }
      return .none
    }
    .ifLet(\.$sheet, action: Action.sheet) { Sheet() }
    .ifLet(\.$destination, action: Action.destination) { Destination() }
    .ifLet(\.$alert, action: Action.alert)
    .ifLet(\.$dialog, action: Action.dialog)
  }
}

/// The presenter with a reducer after the `ifLet` that closes the sheet behind its back.
private struct OuterCloser: Reducer {
  var body: some Reducer<Presenter.State, Presenter.Action> {
    Presenter()
    Reduce { state, action in
      if action == .sheet(.presented(.tick)), state.sheet?.ticks == 2 { state.sheet = nil }
      return .none
    }
  }
}

@MainActor
@Suite struct PresentationTests {
  @Test func theDestinationRunsBeforeTheParent() async {
    let store = TestStore(initialState: Presenter.State(sheet: Sheet.State(ticks: 1))) { Presenter() }
    await store.send(.sheet(.presented(.tick))) {
      $0.sheet?.ticks = 2
      $0.log = ["parent sees 2 ticks"]
    }
  }

  @Test func dismissRunsTheParentWhileTheDestinationIsThereThenRemovesIt() async {
    let store = TestStore(initialState: Presenter.State(sheet: Sheet.State())) { Presenter() }
    await store.send(.sheet(.dismiss)) {
      $0.sheet = nil
      $0.log = ["parent sees the sheet on dismiss"]
    }
  }

  @Test func aDestinationTheParentPresentsWhileDismissingStays() async {
    let store = TestStore(initialState: Presenter.State(sheet: Sheet.State(id: 1))) { Presenter() }
    await store.send(.replaceOnDismiss) { $0.log = ["replace on dismiss"] }
    await store.send(.sheet(.dismiss)) {
      $0.sheet = Sheet.State(id: 8)
      $0.log.append("parent sees the sheet on dismiss")
    }
  }

  @Test func dismissalCancelsTheDestinationsEffects() async {
    let clock = TestClock()
    let store = TestStore(initialState: Presenter.State()) { Presenter() } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.present(id: 1)) { $0.sheet = Sheet.State(id: 1) }
    await store.send(.sheet(.presented(.start)))
    await clock.advance(by: .seconds(1))
    await store.receive(.sheet(.presented(.tick))) {
      $0.sheet?.ticks = 1
      $0.log = ["parent sees 1 ticks"]
    }
    await store.send(.sheet(.dismiss)) {
      $0.sheet = nil
      $0.log.append("parent sees the sheet on dismiss")
    }
    await clock.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func presentingAnotherIdentityCancelsTheEffectsOfTheOldOne() async {
    let clock = TestClock()
    let store = TestStore(initialState: Presenter.State()) { Presenter() } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.present(id: 1)) { $0.sheet = Sheet.State(id: 1) }
    await store.send(.sheet(.presented(.start)))
    await store.send(.present(id: 2)) { $0.sheet = Sheet.State(id: 2) }
    await clock.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func aDestinationRemovedByAnotherReducerHasItsEffectsCancelledAtTheNextAction() async {
    let clock = TestClock()
    let store = TestStore(initialState: Presenter.State()) { OuterCloser() } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.present(id: 1)) { $0.sheet = Sheet.State(id: 1) }
    await store.send(.sheet(.presented(.start)))
    await store.send(.sheet(.presented(.tick))) {
      $0.sheet?.ticks = 1
      $0.log = ["parent sees 1 ticks"]
    }
    // The reducer after the `ifLet` closes the sheet; its timer runs on until the next action.
    await store.send(.sheet(.presented(.tick))) {
      $0.sheet = nil
      $0.log.append("parent sees 2 ticks")
    }
    await store.send(.replaceOnDismiss) { $0.log.append("replace on dismiss") }
    await clock.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func anEffectDismissesItsDestinationThroughTheParent() async {
    let store = TestStore(initialState: Presenter.State(sheet: Sheet.State())) { Presenter() }
    await store.send(.sheet(.presented(.close)))
    await store.receive(.sheet(.dismiss)) {
      $0.sheet = nil
      $0.log = ["parent sees the sheet on dismiss"]
    }
    await store.finish()
  }

  @Test func alertsAndDialogsGoAwayAfterTheParentHandledTheirAction() async {
    let store = TestStore(initialState: Presenter.State()) { Presenter() }
    await store.send(.presentAlertAndDialog) {
      $0.alert = AlertState { TextState("Sure?") }
      $0.dialog = ConfirmationDialogState(titleVisibility: .visible) { TextState("Really?") }
    }
    await store.send(.alert(.presented(.confirm))) { $0.alert = nil }
    await store.send(.dialog(.presented(.confirm))) { $0.dialog = nil }
  }

  @Test func anAlertCaseOfAnEnumDestinationGoesAwayUnlessTheParentPresentedAnotherCase() async {
    let alert = AlertState<Presenter.Choice> { TextState("Sure?") }
    let store = TestStore(initialState: Presenter.State(destination: .alert(alert))) { Presenter() }
    await store.send(.destination(.presented(.alert(.confirm)))) { $0.destination = nil }
    let again = TestStore(initialState: Presenter.State(destination: .alert(alert))) { Presenter() }
    await again.send(.destination(.presented(.alert(.again)))) { $0.destination = .sheet(Sheet.State(id: 5)) }
    await again.send(.destination(.presented(.sheet(.tick)))) { $0.destination = .sheet(Sheet.State(id: 5, ticks: 1)) }
  }

  @Test func anAlertCaseStaysUpWhenAnotherCasesActionArrives() {
    let alert = AlertState<Presenter.Choice> { TextState("Sure?") }
    let store = Store(initialState: Presenter.State(destination: .alert(alert))) { Presenter() }
    let reported = warnings { store.send(.destination(.presented(.sheet(.tick)))) }
    #expect(reported.count == 1)
    #expect(reported.first?.message.contains("received a child action when child state was set to a different case") == true)
    #expect(store.state.destination == .alert(alert))
    // The dialog's actions are of the alert's type, but of another case.
    store.send(.destination(.presented(.dialog(.confirm))))
    #expect(store.state.destination == .alert(alert))
    store.send(.destination(.presented(.alert(.confirm))))
    #expect(store.state.destination == nil)
  }

  @Test func aDialogCaseStaysUpWhenAnotherCasesActionArrives() {
    let dialog = ConfirmationDialogState<Presenter.Choice>(titleVisibility: .visible) { TextState("Really?") }
    let store = Store(initialState: Presenter.State(destination: .dialog(dialog))) { Presenter() }
    let reported = warnings {
      store.send(.destination(.presented(.sheet(.tick))))
      store.send(.destination(.presented(.alert(.confirm))))
    }
    #expect(reported.count == 1)
    #expect(store.state.destination == .dialog(dialog))
    store.send(.destination(.presented(.dialog(.confirm))))
    #expect(store.state.destination == nil)
  }

  @Test func anAlertTheParentReplacedWhileHandlingTheOldOnesActionStaysUp() async {
    let store = TestStore(initialState: Presenter.State()) { Presenter() }
    await store.send(.presentAlertAndDialog) {
      $0.alert = AlertState { TextState("Sure?") }
      $0.dialog = ConfirmationDialogState(titleVisibility: .visible) { TextState("Really?") }
    }
    // Each alert has an identity of its own: the one the parent put up in the old one's place
    // is a new presentation, and stays.
    await store.send(.alert(.presented(.again))) { $0.alert = AlertState { TextState("Once more?") } }
    await store.send(.dialog(.dismiss)) { $0.dialog = nil }
  }

  @Test func anActionForAnAbsentDestinationIsAWarningNamingTheOperator() {
    let store = Store(initialState: Presenter.State()) { Presenter() }
    let reported = warnings { store.send(.sheet(.presented(.tick))) }
    #expect(reported.count == 1)
    #expect(reported.first?.message.contains("received a presentation action when destination state was absent") == true)
    #expect(reported.first?.location.fileID == "BulkheadTests/PresentationTests.swift")
    #expect(reported.first?.location.line == 101)
  }

  @Test func dismissOutsideAPresentationIsAWarning() async {
    let log = Log<RuntimeWarning>()
    let store = Store(initialState: Sheet.State()) { Sheet() }
    await withRuntimeWarningHandler({ log.append($0) }) {
      await store.send(.close).finish()
    }
    #expect(log.all.count == 1)
    #expect(log.all.first?.message.contains("couldn't be dismissed") == true)
    #expect(log.all.first?.location.fileID == "BulkheadTests/PresentationTests.swift")
  }

  @Test func dismissAtTheRootOfATestStoreEndsItsEffectsAndRefusesLaterSends() async {
    let clock = TestClock()
    let store = TestStore(initialState: Sheet.State()) { Sheet() } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.start)
    await store.send(.close)
    // The timer was cancelled with the store: no tick arrives, and none is left running.
    await clock.advance(by: .seconds(5))
    await store.finish()
    await expectFailure(containing: ["Can't send Sheet.Action.tick", "the store was dismissed", "PresentationTests.swift:30"]) {
      await store.send(.tick)
    }
    #expect(store.state == Sheet.State())
  }

  @Test func aChildAloneCanBeTestedWithItsOwnDismissal() async {
    let dismissed = Log<Bool>()
    let store = TestStore(initialState: Sheet.State()) { Sheet() } withDependencies: {
      $0.dismiss = DismissEffect { dismissed.append(true) }
    }
    await store.send(.close)
    await store.finish()
    #expect(dismissed.all == [true])
  }

  @Test func presentationStateEncodesItsValueAloneAndComparesByIt() throws {
    var presented = PresentationState(wrappedValue: Sheet.State(id: 3, ticks: 2))
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let data = try encoder.encode(presented)
    #expect(String(decoding: data, as: UTF8.self) == #"{"id":3,"ticks":2}"#)
    #expect(try JSONDecoder().decode(PresentationState<Sheet.State>.self, from: data) == presented)
    presented.wrappedValue = nil
    #expect(String(decoding: try JSONEncoder().encode(presented), as: UTF8.self) == "null")
  }
}
