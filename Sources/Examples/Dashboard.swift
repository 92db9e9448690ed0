import Bulkhead

/// The seed's parent with three children side by side: profile, settings and notifications.
public struct Dashboard: Reducer {
  public struct State: Equatable, Codable, Sendable {
    public var profile = Profile.State()
    public var settings = Settings.State()
    public var notifications = Notifications.State()
    public init() {}
  }

  public enum Action: Equatable, Codable, Sendable {
    case profile(Profile.Action)
    case settings(Settings.Action)
    case notifications(Notifications.Action)
  }

  public init() {}

  public var body: some Reducer<State, Action> {
    Scope(state: \.profile, action: Action.profile) { Profile() }
    Scope(state: \.settings, action: Action.settings) { Settings() }
    Scope(state: \.notifications, action: Action.notifications) { Notifications() }
    Reduce { state, action in
      // The parent mutes notifications when the user turns them off in settings.
      if case .settings(.notificationsToggled(false)) = action {
        state.notifications.unread = []
      }
      return .none
    }
  }

  /// A user's display name.
  public struct Profile: Reducer {
    public struct State: Equatable, Codable, Sendable {
      public var name = ""
      public init(name: String = "") { self.name = name }
    }
    public enum Action: Equatable, Codable, Sendable { case nameChanged(String) }
    public init() {}
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case let .nameChanged(name): state.name = name
      }
      return .none
    }
  }

  /// Whether notifications are on.
  public struct Settings: Reducer {
    public struct State: Equatable, Codable, Sendable {
      public var notificationsEnabled = true
      public init() {}
    }
    public enum Action: Equatable, Codable, Sendable { case notificationsToggled(Bool) }
    public init() {}
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case let .notificationsToggled(isOn): state.notificationsEnabled = isOn
      }
      return .none
    }
  }

  /// Unread notifications.
  public struct Notifications: Reducer {
    public struct State: Equatable, Codable, Sendable {
      public var unread: [String] = []
      public init() {}
    }
    public enum Action: Equatable, Codable, Sendable {
      case received(String)
      case markAllRead
    }
    public init() {}
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case let .received(message): state.unread.append(message)
      case .markAllRead: state.unread = []
      }
      return .none
    }
  }
}
