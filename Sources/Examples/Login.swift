import Bulkhead

/// A login screen written with action boundaries: the view sends view actions, the feature's
/// own effects send internal actions, and the parent only hears delegate actions.
public struct Login: BoundingReducer, Sendable {
  public struct State: Equatable, Codable, Sendable {
    public var username = ""
    public var isLoggingIn = false
    public var error: String?
    public init(username: String = "") { self.username = username }
  }

  public enum Action: FeatureAction, Equatable, Codable {
    public enum ViewAction: Equatable, Codable, Sendable {
      case usernameChanged(String)
      case onTapLoginButton
    }
    public enum InternalAction: Equatable, Codable, Sendable {
      case loginResult(LoginResult)
    }
    public enum DelegateAction: Equatable, Codable, Sendable {
      case notifyLoginSuccess(String)
    }
    case view(ViewAction)
    case _internal(InternalAction)
    case delegate(DelegateAction)
  }

  /// The answer of the authenticator: a session token, or why it refused.
  public enum LoginResult: Equatable, Codable, Sendable {
    case success(token: String)
    case failure(String)
  }

  @Dependency(\.authenticator) var authenticator

  public init() {}

  public func reduce(into state: inout State, viewAction action: Action.ViewAction) -> Effect<Action> {
    switch action {
    case let .usernameChanged(username):
      state.username = username
      return .none
    case .onTapLoginButton:
      state.isLoggingIn = true
      state.error = nil
      return .run { [username = state.username] send in
        await send(._internal(.loginResult(await authenticator.logIn(username))))
      }
    }
  }

  public func reduce(
    into state: inout State, internalAction action: Action.InternalAction
  ) -> Effect<Action> {
    switch action {
    case let .loginResult(.success(token)):
      state.isLoggingIn = false
      return .send(.delegate(.notifyLoginSuccess(token)))
    case let .loginResult(.failure(reason)):
      state.isLoggingIn = false
      state.error = reason
      return .none
    }
  }
}

/// A parent that presents `Login` as one of its internal actions, and reacts only to the
/// login's delegate actions.
public struct Onboarding: BoundingReducer {
  public struct State: Equatable, Codable, Sendable {
    public var login: Login.State?
    public var token: String?
    public init() {}
  }

  public enum Action: FeatureAction, Equatable, Codable {
    public enum ViewAction: Equatable, Codable, Sendable { case startTapped }
    public enum InternalAction: Equatable, Codable, Sendable { case login(Login.Action) }
    public enum DelegateAction: Equatable, Codable, Sendable { case finished }
    case view(ViewAction)
    case _internal(InternalAction)
    case delegate(DelegateAction)
  }

  public init() {}

  public var body: some Reducer<State, Action> {
    BoundedReduce(self)
      .ifLet(\.login, action: Action.InternalAction.login) { Login() }
  }

  public func reduce(into state: inout State, viewAction action: Action.ViewAction) -> Effect<Action> {
    state.login = Login.State()
    return .none
  }

  public func reduce(
    into state: inout State, internalAction action: Action.InternalAction
  ) -> Effect<Action> {
    guard case let .login(.delegate(.notifyLoginSuccess(token))) = action else { return .none }
    state.token = token
    state.login = nil
    return .send(.delegate(.finished))
  }
}

/// Checks a user's credentials.
public struct Authenticator: Sendable {
  public var logIn: @Sendable (_ username: String) async -> Login.LoginResult
  public init(logIn: @escaping @Sendable (String) async -> Login.LoginResult) { self.logIn = logIn }
}

extension DependencyValues {
  public var authenticator: Authenticator {
    get { self[AuthenticatorKey.self] }
    set { self[AuthenticatorKey.self] = newValue }
  }
}

private enum AuthenticatorKey: DependencyKey {
  static let liveValue = Authenticator { username in
    username.isEmpty ? .failure("A username is required.") : .success(token: "token-\(username)")
  }
  /// The example's live authenticator is a local stand-in already, so tests use it too.
  static let testValue = liveValue
}
