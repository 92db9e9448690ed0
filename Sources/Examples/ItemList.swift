import Bulkhead

/// Items deleted after confirming in an alert: the ephemeral `ifLet` with no child reducer.
public struct ItemList: Reducer {
  public struct State: Equatable, Codable, Sendable {
    public var alert: AlertState<Action.Alert>?
    public var items: [String]
    public var pendingDeletion: String?
    public init(items: [String] = []) { self.items = items }
  }

  public enum Action: Equatable, Codable, Sendable {
    case alert(PresentationAction<Alert>)
    case deleteButtonTapped(String)
    case confirmDelete(String)

    public enum Alert: Equatable, Codable, Sendable {
      case confirmDeletion
    }
  }

  public init() {}

  public var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case let .deleteButtonTapped(item):
        state.pendingDeletion = item
        state.alert = .deletion(of: item)
        return .none
      case .alert(.presented(.confirmDeletion)):
        guard let item = state.pendingDeletion else { return .none }
        state.pendingDeletion = nil
        return .send(.confirmDelete(item))
      case .alert:
        state.pendingDeletion = nil
        return .none
      case let .confirmDelete(item):
        state.items.removeAll { $0 == item }
        return .none
      }
    }
    .ifLet(\.alert, action: Action.alert)
  }
}

extension AlertState where Action == ItemList.Action.Alert {
  /// Asks to confirm the deletion of `item`.
  public static func deletion(of item: String) -> Self {
    AlertState {
      TextState("Delete \(item)?")
    } actions: {
      ButtonState(role: .destructive, action: .confirmDeletion) { TextState("Delete") }
      ButtonState(role: .cancel) { TextState("Cancel") }
    }
  }
}
