import Bulkhead

/// The third tab: keeps the app in step with the server. "Sync now" asks for the server's
/// status once; auto-sync runs a timer that asks every `interval` until it is turned off. A
/// failed sync is counted and shown, and the next one tries again, saying how many were refused.
///
/// ```swift
/// await store.send(.view(.autoSyncToggled(true))) { $0.isAutoSyncOn = true }
/// await clock.advance(by: Sync.interval)
/// await store.receive(._internal(.timerTicked)) { $0.isSyncing = true }
/// ```
public struct Sync: BoundingReducer, Sendable {
  /// How often auto-sync asks.
  public static let interval = Duration.seconds(5)

  public struct State: Equatable, Codable, Sendable {
    public var isAutoSyncOn = false
    public var isSyncing = false
    /// The last version the server answered.
    public var version = 0
    public var message = ""
    /// The syncs the server refused since the last it answered: the next one's `attempt`.
    public var failures = 0
    public init() {}
  }

  public enum Action: FeatureAction, Equatable, Codable {
    public enum ViewAction: Equatable, Codable, Sendable {
      case autoSyncToggled(Bool)
      case syncNowTapped
    }
    public enum InternalAction: Equatable, Codable, Sendable {
      case timerTicked
      case synced(ServerStatus)
      case syncFailed(APIError)
    }
    public enum DelegateAction: Equatable, Codable, Sendable {
      case synced(ServerStatus)
    }
    case view(ViewAction)
    case _internal(InternalAction)
    case delegate(DelegateAction)
  }

  private enum CancelID { case timer, sync }

  @Dependency(\.continuousClock) var clock
  @Dependency(\.errandsAPI) var api

  public init() {}

  public func reduce(into state: inout State, viewAction action: Action.ViewAction) -> Effect<Action> {
    switch action {
    case .autoSyncToggled(true):
      state.isAutoSyncOn = true
      return .run { [clock] send in
        while true {
          try await clock.sleep(for: Self.interval)
          await send(._internal(.timerTicked))
        }
      }
      .cancellable(id: CancelID.timer, cancelInFlight: true)
    case .autoSyncToggled(false):
      state.isAutoSyncOn = false
      return .cancel(id: CancelID.timer)
    case .syncNowTapped:
      return sync(&state)
    }
  }

  public func reduce(into state: inout State, internalAction action: Action.InternalAction) -> Effect<Action> {
    switch action {
    case .timerTicked:
      return sync(&state)
    case let .synced(status):
      state.isSyncing = false
      state.version = status.version
      state.message = status.message
      state.failures = 0
      return .send(.delegate(.synced(status)))
    case let .syncFailed(error):
      state.isSyncing = false
      state.failures += 1
      state.message = error.description
      return .none
    }
  }

  /// Asks for the server's status; a sync still in flight gives way to this one.
  private func sync(_ state: inout State) -> Effect<Action> {
    state.isSyncing = true
    return .run { [api, version = state.version, attempt = state.failures] send in
      await send(._internal(.synced(try await api.status(version, attempt))))
    } catch: { error, send in
      await send(._internal(.syncFailed(APIError(error))))
    }
    .cancellable(id: CancelID.sync, cancelInFlight: true)
  }
}
