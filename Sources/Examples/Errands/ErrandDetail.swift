import Bulkhead

/// An errand's detail, presented as a sheet by the list: rename it, work through its
/// checklist (a child feature of its own, inside the sheet), and save it through the API.
/// Ticking every item of a non-empty checklist marks the errand done when it is saved. A
/// saved errand goes to the list and the sheet dismisses itself; a failed save puts up an
/// alert that offers to try again.
///
/// ```swift
/// await store.send(.view(.saveTapped)) { $0.isSaving = true }
/// await clock.advance(by: FakeServer.latency(of: .save(errand, attempt: 0)))
/// await store.receive(._internal(.saved(saved))) { $0.isSaving = false }
/// ```
public struct ErrandDetail: Reducer, Sendable {
  public struct State: Equatable, Codable, Sendable {
    public var errand: Errand
    public var checklist = Checklist.State()
    public var isSaving = false
    /// The saves the server refused since the sheet opened: the next save's `attempt`.
    public var failedSaves = 0
    @PresentationState public var alert: AlertState<Alert>?
    public init(errand: Errand) { self.errand = errand }

    /// The errand as it would be saved now.
    public var edited: Errand {
      var errand = errand
      if !checklist.items.isEmpty, checklist.checkedCount == checklist.items.count { errand.isDone = true }
      return errand
    }
  }

  public enum Action: FeatureAction, Equatable, Codable {
    public enum ViewAction: Equatable, Codable, Sendable {
      case titleChanged(String)
      case saveTapped
      case cancelTapped
    }
    public enum InternalAction: Equatable, Codable, Sendable {
      case saved(Errand)
      case saveFailed(APIError)
    }
    public enum DelegateAction: Equatable, Codable, Sendable {
      case saved(Errand)
    }
    case view(ViewAction)
    case _internal(InternalAction)
    case delegate(DelegateAction)
    case checklist(Checklist.Action)
    case alert(PresentationAction<Alert>)
  }

  public enum Alert: Equatable, Codable, Sendable {
    case retrySaveTapped
  }

  private enum CancelID { case save }

  @Dependency(\.errandsAPI) var api
  @Dependency(\.dismiss) var dismiss

  public init() {}

  public var body: some Reducer<State, Action> {
    Scope(state: \.checklist, action: Action.checklist) { Checklist() }
    Reduce { state, action in
      switch action {
      case let .view(.titleChanged(title)):
        state.errand.title = title
        return .none
      case .view(.saveTapped), .alert(.presented(.retrySaveTapped)):
        state.isSaving = true
        return .run { [api, errand = state.edited, attempt = state.failedSaves] send in
          await send(._internal(.saved(try await api.save(errand, attempt))))
        } catch: { error, send in
          await send(._internal(.saveFailed(APIError(error))))
        }
        .cancellable(id: CancelID.save, cancelInFlight: true)
      case .view(.cancelTapped):
        return .run { [dismiss] _ in await dismiss() }
      case let ._internal(.saved(errand)):
        state.isSaving = false
        return .run { [dismiss] send in
          await send(.delegate(.saved(errand)))
          await dismiss()
        }
      case let ._internal(.saveFailed(error)):
        state.isSaving = false
        state.failedSaves += 1
        state.alert = .saveFailed(error)
        return .none
      case .delegate, .checklist, .alert:
        return .none
      }
    }
    .ifLet(\.$alert, action: Action.alert)
  }
}

extension AlertState where Action == ErrandDetail.Alert {
  /// Says why the errand was not saved, and offers to try again.
  public static func saveFailed(_ error: APIError) -> Self {
    AlertState {
      TextState("Could not save")
    } actions: {
      ButtonState(action: .retrySaveTapped) { TextState("Try again") }
      ButtonState(role: .cancel) { TextState("Cancel") }
    } message: {
      TextState(error.description)
    }
  }
}
