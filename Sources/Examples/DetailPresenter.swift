import Bulkhead

/// `ifLet` with an optional child: a detail screen that is shown and dismissed.
public struct DetailPresenter: Reducer {
  public struct State: Equatable, Codable, Sendable {
    public var detail: Detail.State?
    public var items: [String] = []
    public init(detail: Detail.State? = nil) { self.detail = detail }
  }

  public enum Action: Equatable, Codable, Sendable {
    case detail(Detail.Action)
    case showDetailTapped
    case hideDetail
  }

  public init() {}

  public var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .detail(.closeButtonTapped):
        state.detail = nil
        return .none
      case .detail:
        return .none
      case .showDetailTapped:
        state.detail = Detail.State(description: "")
        return .none
      case .hideDetail:
        state.detail = nil
        return .none
      }
    }
    .ifLet(\.detail, action: Action.detail) { Detail() }
  }

  /// The presented detail: a description the user edits, and a close button.
  public struct Detail: Reducer {
    public struct State: Equatable, Codable, Sendable {
      public var description: String
      public init(description: String) { self.description = description }
    }
    public enum Action: Equatable, Codable, Sendable {
      case closeButtonTapped
      case descriptionChanged(String)
    }
    public init() {}
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .closeButtonTapped:
        return .none
      case let .descriptionChanged(description):
        state.description = description
        return .none
      }
    }
  }
}
