import Bulkhead

/// An errands app shaped like a real one, for running every kind of boundary across
/// processes: three tabs under `Scope`s — the errands list (rows that save themselves after
/// a pause, a detail sheet holding a checklist), the trips (a navigation stack whose trip
/// screens hold a stopwatch) and sync (a timer) — over an `async throws` API client whose
/// server is inside the app. The app itself switches tabs, tells the trips tab which errands
/// are open, ticks the errands of a finished trip done, and shows a banner of what happened
/// last. See docs/example-app.md.
///
/// ```swift
/// let store = Store(initialState: Errands.State()) { Errands() }
/// store.send(.list(.view(.addButtonTapped(title: "Post a letter"))))
/// ```
public struct Errands: Reducer, Sendable {
  public enum Tab: String, Equatable, Codable, Sendable {
    case list, trips, sync
  }

  public struct State: Equatable, Codable, Sendable {
    public var selectedTab = Tab.list
    public var list: ErrandList.State
    public var trips = Trips.State()
    public var sync = Sync.State()
    /// The last thing the app has to say, shown above every tab.
    public var banner: String?

    public init(errands: [Errand] = Errands.starters) {
      list = ErrandList.State(errands: errands)
    }
  }

  public enum Action: Equatable, Codable, Sendable {
    case tabSelected(Tab)
    case list(ErrandList.Action)
    case trips(Trips.Action)
    case sync(Sync.Action)
  }

  /// The errands a new app starts with.
  public static let starters = [
    Errand(id: 0, title: "Milk", revision: 1), Errand(id: 1, title: "Bread", revision: 1),
  ]

  public init() {}

  public var body: some Reducer<State, Action> {
    Scope(state: \.list, action: Action.list) { ErrandList() }
    Scope(state: \.trips, action: Action.trips) { Trips() }
    Scope(state: \.sync, action: Action.sync) { Sync() }
    Reduce { state, action in
      switch action {
      case let .tabSelected(tab):
        state.selectedTab = tab
        if tab == .trips {
          state.trips.openErrands = state.list.rows.filter { !$0.errand.isDone }.map(\.errand.title)
        }
        return .none
      case let .trips(.delegate(.tripFinished(visited))):
        let done = state.list.rows.filter { visited.contains($0.errand.title) && !$0.errand.isDone }.map(\.id)
        state.banner = "Trip finished: \(done.count) errand\(done.count == 1 ? "" : "s") done"
        return done.isEmpty ? .none : .send(.list(.markDone(ids: done)))
      case let .list(.rows(.element(_, .delegate(.saveFailed(errand, _))))):
        state.banner = "\"\(errand.title)\" was not saved"
        return .none
      case let .sync(.delegate(.synced(status))):
        state.banner = status.message
        return .none
      case .list, .trips, .sync:
        return .none
      }
    }
  }
}
