import Bulkhead
import CAllocationCounter
import Examples

// Ten levels of nesting, each a concrete (non-generic) feature as apps write them: a key
// path into a generic type is rebuilt by the runtime on every use, which would measure that
// instead of Bulkhead.

struct Nest1: Reducer {
  struct State: Sendable { var child = Counter.State() }
  enum Action: Sendable { case child(Counter.Action) }
  var body: some Reducer<State, Action> {
    Scope(state: \.child, action: Action.child) { Counter() }
  }
}

struct Nest2: Reducer {
  struct State: Sendable { var child = Nest1.State() }
  enum Action: Sendable { case child(Nest1.Action) }
  var body: some Reducer<State, Action> {
    Scope(state: \.child, action: Action.child) { Nest1() }
  }
}

struct Nest3: Reducer {
  struct State: Sendable { var child = Nest2.State() }
  enum Action: Sendable { case child(Nest2.Action) }
  var body: some Reducer<State, Action> {
    Scope(state: \.child, action: Action.child) { Nest2() }
  }
}

struct Nest4: Reducer {
  struct State: Sendable { var child = Nest3.State() }
  enum Action: Sendable { case child(Nest3.Action) }
  var body: some Reducer<State, Action> {
    Scope(state: \.child, action: Action.child) { Nest3() }
  }
}

struct Nest5: Reducer {
  struct State: Sendable { var child = Nest4.State() }
  enum Action: Sendable { case child(Nest4.Action) }
  var body: some Reducer<State, Action> {
    Scope(state: \.child, action: Action.child) { Nest4() }
  }
}

struct Nest6: Reducer {
  struct State: Sendable { var child = Nest5.State() }
  enum Action: Sendable { case child(Nest5.Action) }
  var body: some Reducer<State, Action> {
    Scope(state: \.child, action: Action.child) { Nest5() }
  }
}

struct Nest7: Reducer {
  struct State: Sendable { var child = Nest6.State() }
  enum Action: Sendable { case child(Nest6.Action) }
  var body: some Reducer<State, Action> {
    Scope(state: \.child, action: Action.child) { Nest6() }
  }
}

struct Nest8: Reducer {
  struct State: Sendable { var child = Nest7.State() }
  enum Action: Sendable { case child(Nest7.Action) }
  var body: some Reducer<State, Action> {
    Scope(state: \.child, action: Action.child) { Nest7() }
  }
}

struct Nest9: Reducer {
  struct State: Sendable { var child = Nest8.State() }
  enum Action: Sendable { case child(Nest8.Action) }
  var body: some Reducer<State, Action> {
    Scope(state: \.child, action: Action.child) { Nest8() }
  }
}

struct Nest10: Reducer {
  struct State: Sendable { var child = Nest9.State() }
  enum Action: Sendable { case child(Nest9.Action) }
  var body: some Reducer<State, Action> {
    Scope(state: \.child, action: Action.child) { Nest9() }
  }
}

/// The same state change as the nested scopes, written as one `switch`.
private func handWritten1(_ state: inout Nest1.State, _ action: Nest1.Action) {
  switch action {
  case .child(.incrementButtonTapped): state.child.count += 1
  case .child(.decrementButtonTapped): state.child.count -= 1
  }
}

private func handWritten5(_ state: inout Nest5.State, _ action: Nest5.Action) {
  switch action {
  case .child(.child(.child(.child(.child(.incrementButtonTapped))))):
    state.child.child.child.child.child.count += 1
  case .child(.child(.child(.child(.child(.decrementButtonTapped))))):
    state.child.child.child.child.child.count -= 1
  }
}

private func handWritten10(_ state: inout Nest10.State, _ action: Nest10.Action) {
  switch action {
  case .child(.child(.child(.child(.child(.child(.child(.child(.child(.child(.incrementButtonTapped)))))))))):
    state.child.child.child.child.child.child.child.child.child.child.count += 1
  case .child(.child(.child(.child(.child(.child(.child(.child(.child(.child(.decrementButtonTapped)))))))))):
    state.child.child.child.child.child.child.child.child.child.child.count -= 1
  }
}

/// Rows of counters for the `forEach` measurement.
struct CounterRows: Reducer {
  struct Row: Identifiable, Sendable {
    let id: Int
    var counter = Counter.State()
  }
  struct State: Sendable { var rows: IdentifiedArrayOf<Row> }
  enum Action: Sendable { case rows(IdentifiedAction<Int, Counter.Action>) }

  var body: some Reducer<State, Action> {
    EmptyReducer()
      .forEach(\.rows, action: Action.rows) { Scope(state: \Row.counter, action: { $0 }) { Counter() } }
  }
}

private func handWrittenRows(_ state: inout CounterRows.State, _ action: CounterRows.Action) {
  switch action {
  case let .rows(.element(id, .incrementButtonTapped)): state.rows[id: id]?.counter.count += 1
  case let .rows(.element(id, .decrementButtonTapped)): state.rows[id: id]?.counter.count -= 1
  }
}

/// The in-process core: an action through nested scopes and a large `forEach`, each as a
/// ratio to a hand-written `switch` making the same change.
package func coreBenchmarks() -> [Row] {
  let iterations = 200_000
  var rows: [Row] = []

  // The reducer as a store holds it: through the builder, which builds each body once.
  func compare<State, Action: Sendable>(
    _ name: String, state: State, action: Action,
    handWritten: (inout State, Action) -> Void, iterations: Int, goal: Row.Goal? = nil,
    @ReducerBuilder<State, Action> reducer makeReducer: () -> some Reducer<State, Action>
  ) {
    let reducer = makeReducer()
    var manualState = state
    let manual = nanosecondsPerCall(iterations: iterations) {
      handWritten(&manualState, action)
      blackHole(manualState)
    }
    var composedState = state
    let composed = nanosecondsPerCall(iterations: iterations) {
      blackHole(reducer.reduce(into: &composedState, action: action))
    }
    rows.append(Row(name: "\(name): hand-written switch", value: manual, unit: "ns", baseline: nil))
    rows.append(Row(name: "\(name): Bulkhead", value: composed, unit: "ns", baseline: manual, goal: goal))
  }

  let increment = Counter.Action.incrementButtonTapped
  compare(
    "1 scope", state: Nest1.State(), action: .child(increment),
    handWritten: handWritten1, iterations: iterations, goal: .ratio(2)
  ) { Nest1() }

  let action5: Nest5.Action = .child(.child(.child(.child(.child(increment)))))
  compare(
    "5 nested scopes", state: Nest5.State(), action: action5,
    handWritten: handWritten5, iterations: iterations
  ) { Nest5() }

  let action10: Nest10.Action = .child(.child(.child(.child(.child(action5)))))
  compare(
    "10 nested scopes", state: Nest10.State(), action: action10,
    handWritten: handWritten10, iterations: iterations, goal: .ratio(3)
  ) { Nest10() }

  compare(
    "forEach over 1,000 elements",
    state: CounterRows.State(rows: IdentifiedArray((1...1_000).map { CounterRows.Row(id: $0) })),
    action: .rows(.element(id: 500, action: .incrementButtonTapped)),
    handWritten: handWrittenRows, iterations: iterations / 10, goal: .ratio(3)
  ) { CounterRows() }

  let path = CasePath(TwoCounters.Action.counter2)
  let action = TwoCounters.Action.counter2(.incrementButtonTapped)
  let baseline = nanosecondsPerCall(iterations: iterations) {
    if case let .counter2(child) = action { blackHole(child) }
  }
  let extraction = nanosecondsPerCall(iterations: iterations) { blackHole(path.extract(from: action)) }
  rows.append(Row(name: "case extraction: `if case`", value: baseline, unit: "ns", baseline: nil))
  rows.append(Row(name: "case extraction: CasePath", value: extraction, unit: "ns", baseline: baseline, goal: .ratio(1.5)))
  return rows
}

/// `Store.send` of an action through one scope, whose effects are all `.none`: its time as a
/// ratio to calling the reducer directly, and the heap allocations it makes.
@MainActor
package func storeBenchmarks(iterations: Int = 200_000) -> [Row] {
  let action = Nest1.Action.child(.incrementButtonTapped)
  var state = Nest1.State()
  // As the store holds it: the body built once.
  let reducer = ReducerBuilder<Nest1.State, Nest1.Action>.buildExpression(Nest1())
  let direct = nanosecondsPerCall(iterations: iterations) {
    blackHole(reducer.reduce(into: &state, action: action))
  }
  let store = Store(initialState: Nest1.State()) { Nest1() }
  let sent = nanosecondsPerCall(iterations: iterations) { store.send(action) }
  // Counted on this thread only (see `bulkhead_allocation_count`), after the runs above
  // warmed up the store's buffers and the case path caches.
  let before = bulkhead_allocation_count()
  for _ in 0..<iterations { store.send(action) }
  let allocations = Double(bulkhead_allocation_count() - before) / Double(iterations)
  return [
    Row(name: "1 scope: calling the reducer", value: direct, unit: "ns", baseline: nil),
    Row(name: "1 scope: `Store.send`", value: sent, unit: "ns", baseline: direct, goal: .ratio(5)),
    Row(
      name: "heap allocations per `Store.send` (effects all `.none`)", value: allocations,
      unit: "", baseline: nil, goal: .value(0), hasRatio: false),
  ]
}

