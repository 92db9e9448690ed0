import Bulkhead

/// Effects that wake at the same instant and cancel one another: `count` at the root and one
/// in an `ifLet` child, each of whose actions may cancel another effect (by `cancel(id:)`) or
/// dismiss the child, as `plan` says. An action that arrives after its effect was cancelled
/// is recorded, and must never happen — with the child in a worker too.
public struct Race: Reducer {
  /// What an effect's action cancels.
  public enum Target: Equatable, Hashable, Codable, Sendable { case effect(Int), child }

  public struct State: Equatable, Codable, Sendable {
    public let count: Int
    public let plan: [Int: Target]
    public var child: Sleeper.State?
    public var arrived: [Int] = []
    public var cancelled: Set<Int> = []
    public var arrivedAfterCancellation: [Int] = []

    public init(count: Int, plan: [Int: Target]) {
      self.count = count
      self.plan = plan
    }

    /// A race of 2…6 root effects and the child's, each cancelling another or not, at random.
    public static func random(using generator: inout some RandomNumberGenerator) -> Self {
      let count = Int.random(in: 2...6, using: &generator)
      var plan: [Int: Target] = [:]
      for number in 0...count where Bool.random(using: &generator) {
        let target = Int.random(in: 0...count, using: &generator)
        guard target != number else { continue }
        plan[number] = target == count ? .child : .effect(target)
      }
      return Self(count: count, plan: plan)
    }
  }

  public enum Action: Equatable, Codable, Sendable {
    case begin
    case fired(Int)
    case child(Sleeper.Action)
  }

  @Dependency(\.continuousClock) var clock

  public init() {}

  public var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .begin:
        state.child = Sleeper.State()
        let sleeps = (0..<state.count).map { number in
          Effect<Action>.run { [clock] send in
            try await clock.sleep(for: .seconds(1))
            await send(.fired(number))
          }
          .cancellable(id: number)
        }
        return .merge(sleeps + [.send(.child(.start))])
      case let .fired(number):
        return arrive(number, &state)
      case .child(.fired):
        return arrive(state.count, &state)
      case .child:
        return .none
      }
    }
    .ifLet(\.child, action: Action.child) { Sleeper() }
  }

  private func arrive(_ number: Int, _ state: inout State) -> Effect<Action> {
    if state.cancelled.contains(number) { state.arrivedAfterCancellation.append(number) }
    state.arrived.append(number)
    switch state.plan[number] {
    case nil:
      return .none
    case let .effect(target):
      if !state.arrived.contains(target) { state.cancelled.insert(target) }
      return .cancel(id: target)
    case .child:
      if !state.arrived.contains(state.count) { state.cancelled.insert(state.count) }
      state.child = nil
      return .none
    }
  }

  /// The child: its one effect sleeps a second and then reports.
  public struct Sleeper: Reducer {
    public struct State: Equatable, Codable, Sendable {
      public init() {}
    }
    public enum Action: Equatable, Codable, Sendable { case start, fired }

    @Dependency(\.continuousClock) var clock

    public init() {}

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .start:
        return .run { [clock] send in
          try await clock.sleep(for: .seconds(1))
          await send(.fired)
        }
      case .fired:
        return .none
      }
    }
  }
}
