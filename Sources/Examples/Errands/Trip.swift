import Bulkhead

/// A trip, a screen of the trips tab's stack: it asks the API for the order of its stops
/// (an alert offers to try again when the server refuses), times itself with a stopwatch (a
/// child feature of the screen), pushes a stop's screen when one is tapped, and "Finish"
/// tells the tab which stops were visited and pops itself.
///
/// ```swift
/// await store.send(.view(.task)) { $0.isRouting = true }
/// await clock.advance(by: FakeServer.latency(of: .route(stops: stops, attempt: 0)))
/// await store.receive(._internal(.routed(route))) { … }
/// ```
public struct Trip: Reducer, Sendable {
  public struct State: Equatable, Codable, Sendable {
    public var name: String
    public var stops: [String]
    /// The stops in the order the server chose; nil until it answered.
    public var route: [String]?
    public var isRouting = false
    /// The route questions the server refused: the next one's `attempt`.
    public var failedRoutes = 0
    public var visited: [String] = []
    public var stopwatch = Stopwatch.State()
    @PresentationState public var alert: AlertState<Alert>?
    public init(name: String, stops: [String]) { (self.name, self.stops) = (name, stops) }
  }

  public enum Action: FeatureAction, Equatable, Codable {
    public enum ViewAction: Equatable, Codable, Sendable {
      /// The screen appeared: ask for the route.
      case task
      case stopTapped(String)
      case finishTapped
    }
    public enum InternalAction: Equatable, Codable, Sendable {
      case routed([String])
      case routeFailed(APIError)
    }
    public enum DelegateAction: Equatable, Codable, Sendable {
      case stopTapped(String)
      case finished(visited: [String])
    }
    case view(ViewAction)
    case _internal(InternalAction)
    case delegate(DelegateAction)
    case stopwatch(Stopwatch.Action)
    case alert(PresentationAction<Alert>)
  }

  public enum Alert: Equatable, Codable, Sendable {
    case retryTapped
  }

  private enum CancelID { case route }

  @Dependency(\.errandsAPI) var api
  @Dependency(\.dismiss) var dismiss

  public init() {}

  public var body: some Reducer<State, Action> {
    Scope(state: \.stopwatch, action: Action.stopwatch) { Stopwatch() }
    Reduce { state, action in
      switch action {
      case .view(.task), .alert(.presented(.retryTapped)):
        state.isRouting = true
        return .run { [api, stops = state.stops, attempt = state.failedRoutes] send in
          await send(._internal(.routed(try await api.route(stops, attempt))))
        } catch: { error, send in
          await send(._internal(.routeFailed(APIError(error))))
        }
        .cancellable(id: CancelID.route, cancelInFlight: true)
      case let .view(.stopTapped(stop)):
        return .send(.delegate(.stopTapped(stop)))
      case .view(.finishTapped):
        return .run { [dismiss, visited = state.visited] send in
          await send(.delegate(.finished(visited: visited)))
          await dismiss()
        }
      case let ._internal(.routed(route)):
        state.isRouting = false
        state.route = route
        return .none
      case let ._internal(.routeFailed(error)):
        state.isRouting = false
        state.failedRoutes += 1
        state.alert = .routeFailed(error)
        return .none
      case .delegate, .stopwatch, .alert:
        return .none
      }
    }
    .ifLet(\.$alert, action: Action.alert)
  }
}

extension AlertState where Action == Trip.Alert {
  /// Says why the route did not come, and offers to ask again.
  public static func routeFailed(_ error: APIError) -> Self {
    AlertState {
      TextState("No route")
    } actions: {
      ButtonState(action: .retryTapped) { TextState("Try again") }
      ButtonState(role: .cancel) { TextState("Cancel") }
    } message: {
      TextState(error.description)
    }
  }
}
