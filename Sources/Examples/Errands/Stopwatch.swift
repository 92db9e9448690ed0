import Bulkhead

/// A trip's stopwatch: a timer that ticks every second on the clock until it is stopped,
/// or until the trip's screen leaves the stack, which cancels it.
///
/// ```swift
/// await store.send(.startTapped) { $0.isRunning = true }
/// await clock.advance(by: .seconds(1))
/// await store.receive(.ticked) { $0.seconds = 1 }
/// ```
public struct Stopwatch: Reducer, Sendable {
  public struct State: Equatable, Codable, Sendable {
    public var seconds = 0
    public var isRunning = false
    public init() {}
  }

  public enum Action: Equatable, Codable, Sendable {
    case startTapped
    case stopTapped
    case resetTapped
    case ticked
  }

  private enum CancelID { case timer }

  @Dependency(\.continuousClock) var clock

  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .startTapped:
      state.isRunning = true
      return .run { [clock] send in
        while true {
          try await clock.sleep(for: .seconds(1))
          await send(.ticked)
        }
      }
      .cancellable(id: CancelID.timer, cancelInFlight: true)
    case .stopTapped:
      state.isRunning = false
      return .cancel(id: CancelID.timer)
    case .resetTapped:
      state.seconds = 0
      return .none
    case .ticked:
      state.seconds += 1
      return .none
    }
  }
}
