import Bulkhead

/// One row of the errands list. Every edit is saved after a pause: the row waits
/// `saveDelay` on the clock, then saves through the API; another edit in the meantime
/// cancels the wait (or the save in flight) and starts again. A failed save tells the list.
///
/// ```swift
/// await store.send(.view(.titleChanged("Milk"))) { … }
/// await clock.advance(by: ErrandRow.saveDelay)
/// await store.receive(._internal(.saveStarted)) { $0.status = .saving }
/// ```
public struct ErrandRow: BoundingReducer, Sendable {
  /// How long a row waits after an edit before it saves.
  public static let saveDelay = Duration.milliseconds(300)

  public struct State: Equatable, Codable, Sendable, Identifiable {
    public var errand: Errand
    public var status = Status.saved
    /// The saves the server refused since the last it took: the next save's `attempt`.
    public var failedSaves = 0
    public var id: Int { errand.id }
    public init(errand: Errand) { self.errand = errand }
  }

  /// Where the row's latest edit is.
  public enum Status: Equatable, Codable, Sendable {
    case saved
    /// Edited, waiting for the pause before saving.
    case edited
    case saving
    case failed(APIError)
  }

  public enum Action: FeatureAction, Equatable, Codable {
    public enum ViewAction: Equatable, Codable, Sendable {
      case titleChanged(String)
      case doneToggled
      case retryTapped
    }
    public enum InternalAction: Equatable, Codable, Sendable {
      case saveStarted
      case saved(Errand)
      case saveFailed(APIError)
    }
    public enum DelegateAction: Equatable, Codable, Sendable {
      case saveFailed(Errand, APIError)
    }
    case view(ViewAction)
    case _internal(InternalAction)
    case delegate(DelegateAction)
  }

  private enum CancelID { case save }

  @Dependency(\.continuousClock) var clock
  @Dependency(\.errandsAPI) var api

  public init() {}

  public func reduce(into state: inout State, viewAction action: Action.ViewAction) -> Effect<Action> {
    switch action {
    case let .titleChanged(title):
      state.errand.title = title
    case .doneToggled:
      state.errand.isDone.toggle()
    case .retryTapped:
      break
    }
    state.status = .edited
    return save(state.errand, attempt: state.failedSaves)
  }

  public func reduce(into state: inout State, internalAction action: Action.InternalAction) -> Effect<Action> {
    switch action {
    case .saveStarted:
      state.status = .saving
      return .none
    case let .saved(errand):
      state.errand.revision = errand.revision
      state.status = .saved
      state.failedSaves = 0
      return .none
    case let .saveFailed(error):
      state.status = .failed(error)
      state.failedSaves += 1
      return .send(.delegate(.saveFailed(state.errand, error)))
    }
  }

  /// Waits for the pause, then saves `errand`; cancels the wait or save of an earlier edit.
  private func save(_ errand: Errand, attempt: Int) -> Effect<Action> {
    .run { [clock, api] send in
      try await clock.sleep(for: Self.saveDelay)
      await send(._internal(.saveStarted))
      await send(._internal(.saved(try await api.save(errand, attempt))))
    } catch: { error, send in
      await send(._internal(.saveFailed(APIError(error))))
    }
    .cancellable(id: CancelID.save, cancelInFlight: true)
  }
}
