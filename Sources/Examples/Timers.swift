import Bulkhead

/// `forEach` over timers that tick on the clock dependency; removing a timer cancels its
/// ticking, and the parent counts every tick it sees.
public struct Timers: Reducer {
  public struct State: Equatable, Codable, Sendable {
    public var timers: IdentifiedArrayOf<Timer.State> = []
    public var totalTicks = 0
    public init(timers: IdentifiedArrayOf<Timer.State> = []) { self.timers = timers }
  }

  public enum Action: Equatable, Codable, Sendable {
    case timers(IdentifiedActionOf<Timer>)
    case addTimerTapped
    case removeTimerTapped(id: Int)
  }

  public init() {}

  public var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .timers(.element(_, .tick)):
        state.totalTicks += 1
        return .none
      case .timers:
        return .none
      case .addTimerTapped:
        let id = (state.timers.last?.id ?? 0) + 1
        state.timers.append(Timer.State(id: id))
        return .none
      case let .removeTimerTapped(id):
        state.timers.remove(id: id)
        return .none
      }
    }
    .forEach(\.timers, action: Action.timers) { Timer() }
  }

  /// One timer: start it and it ticks every second until stopped.
  public struct Timer: Reducer, Sendable {
    public struct State: Equatable, Codable, Sendable, Identifiable {
      public let id: Int
      public var ticks = 0
      public var isRunning = false
      public init(id: Int) { self.id = id }
    }

    public enum Action: Equatable, Codable, Sendable {
      case startTapped
      case stopTapped
      case tick
    }

    private enum CancelID { case ticking }

    @Dependency(\.continuousClock) var clock

    public init() {}

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .startTapped:
        state.isRunning = true
        return .run { send in
          while true {
            try await clock.sleep(for: .seconds(1))
            await send(.tick)
          }
        }
        .cancellable(id: CancelID.ticking, cancelInFlight: true)
      case .stopTapped:
        state.isRunning = false
        return .cancel(id: CancelID.ticking)
      case .tick:
        state.ticks += 1
        return .none
      }
    }
  }
}
