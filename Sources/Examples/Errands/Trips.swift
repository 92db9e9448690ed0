import Bulkhead

/// The second tab: a navigation stack of trips and their stops. "Plan a trip" pushes a trip
/// through the errands still open; a trip pushes a stop's screen when one is tapped; a
/// visited stop is ticked on the trip below it; a finished trip is told to the app.
///
/// ```swift
/// await store.send(.view(.planTripTapped)) { $0.path[id: 0] = .trip(Trip.State(name: "Trip 1", stops: ["Milk"])) }
/// ```
public struct Trips: Reducer, Sendable {
  public struct State: Equatable, Codable, Sendable {
    /// The titles of the errands still open, as the app last told the tab.
    public var openErrands: [String] = []
    public var path = StackState<Path.State>()
    public var tripsPlanned = 0
    public init() {}
  }

  public enum Action: Equatable, Codable, Sendable {
    case view(View)
    case path(StackActionOf<Path>)
    case delegate(Delegate)

    public enum View: Equatable, Codable, Sendable {
      case planTripTapped
    }
    public enum Delegate: Equatable, Codable, Sendable {
      case tripFinished(visited: [String])
    }
  }

  /// The screens the stack can push.
  public struct Path: Reducer, Sendable {
    public enum State: Equatable, Codable, Sendable {
      case trip(Trip.State)
      case stop(TripStop.State)
    }

    public enum Action: Equatable, Codable, Sendable {
      case trip(Trip.Action)
      case stop(TripStop.Action)
    }

    public init() {}

    public var body: some Reducer<State, Action> {
      Scope(state: State.trip, action: Action.trip) { Trip() }
      Scope(state: State.stop, action: Action.stop) { TripStop() }
    }
  }

  public init() {}

  public var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .view(.planTripTapped):
        state.tripsPlanned += 1
        let stops = state.openErrands.isEmpty ? ["Market"] : state.openErrands
        state.path.append(.trip(Trip.State(name: "Trip \(state.tripsPlanned)", stops: stops)))
        return .none
      case let .path(.element(_, .trip(.delegate(.stopTapped(stop))))):
        state.path.append(.stop(TripStop.State(name: stop)))
        return .none
      case let .path(.element(id, .stop(.delegate(.visited(stop))))):
        // The trip this stop was pushed from: the nearest trip below it.
        let below = zip(state.path.ids, state.path).reversed().first { $0.0 < id && $0.1.isTrip }
        if let below, case var .trip(trip) = below.1, !trip.visited.contains(stop) {
          trip.visited.append(stop)
          state.path[id: below.0] = .trip(trip)
        }
        return .none
      case let .path(.element(_, .trip(.delegate(.finished(visited))))):
        return .send(.delegate(.tripFinished(visited: visited)))
      case .path, .delegate:
        return .none
      }
    }
    .forEach(\.path, action: Action.path) { Path() }
  }
}

extension Trips.Path.State {
  var isTrip: Bool {
    if case .trip = self { true } else { false }
  }
}
