/// A feature with a `body`, as a `ReducerBuilder` lists it: its body is built once, when the
/// builder runs, and kept for every action — unless the body could come out different on a
/// later action, in which case it is built for each action as before.
///
/// A store runs its root through a builder and keeps what it gets, and every `Scope`,
/// `forEach`, `ifLet` or `body` line goes through one, so a tree of features is built once per
/// store: no key path, case path or `Scope` made and destroyed per action.
///
/// A body is kept only when it is the same on every action:
/// - the feature holds nothing that could change between actions or reach outside itself —
///   no `@Dependency`, closure, class reference or existential (its type is plain data,
///   `_isPOD`); a `@Dependency` wrapper holds a key path, a reference, so a feature with one
///   never qualifies, and each action builds its body under the dependencies then in force;
/// - and building it read no dependency (a `@Dependency` declared inside `body`): the reads
///   are counted while it is built, and one read makes this body one built per action.
///
/// A body that reads a global variable is the one case this cannot see; such a feature
/// should read it through a dependency, as TCA asks of any outside input.
///
/// ```swift
/// var body: some Reducer<State, Action> {
///   Scope(state: \.child, action: Action.child) { Child() }  // Child's body is built here, once
/// }
/// ```
public struct _BuiltBody<Base: Reducer>: Reducer
where Base.Body: Reducer<Base.State, Base.Action> {
  let base: Base
  /// The body, when it is the same on every action; nil when each action builds its own.
  let built: KeptBody<Base.Body>?
  /// `built`, for running it: no reference counting on the path of every action.
  ///
  /// Safe: it is `built` itself, unretained, and `built` (held strongly beside it, in every
  /// copy of this value) keeps the object alive for as long as any copy can reach this field.
  let running: Unmanaged<KeptBody<Base.Body>>?

  init(_ base: Base) {
    self.base = base
    if _isPOD(Base.self), let body = DependencyReads.none(in: { base.body }) {
      let kept = KeptBody(body)
      built = kept
      running = Unmanaged.passUnretained(kept)
    } else {
      built = nil
      running = nil
    }
  }

  // Inlined into the level above, so that the levels of a nested composition run as one
  // function rather than a call per level (ten nested scopes: 58 -> 47 ns). Only the kept
  // path: the other stays out of line, below.
  @inline(__always)
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    // The kept body lives in an object, so that no level holds the levels below it inline,
    // and is reached unretained: an inline body was copied on entry to each level with every
    // level below it, through its type metadata, and a retained object cost a retain and a
    // release per level (measured).
    guard let running else { return reduceBuildingBody(into: &state, action: action) }
    return running._withUnsafeGuaranteedRef { $0.body.reduce(into: &state, action: action) }
  }

  /// Out of line: inlining both paths at every level would double the code per level of
  /// nesting (the compiler ran out of memory on ten nested scopes).
  @inline(never)
  func reduceBuildingBody(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    base.reduce(into: &state, action: action)
  }
}

/// A body kept by `_BuiltBody`, in an object of its own.
final class KeptBody<Body> {
  let body: Body

  init(_ body: Body) { self.body = body }
}

extension ReducerBuilder {
  /// A feature with a body, as `_BuiltBody` keeps it: preferred to the plain
  /// `buildExpression(_:)` for every reducer whose body is itself a reducer.
  @inline(__always)
  public static func buildExpression<R: Reducer<State, Action>>(_ reducer: R) -> _BuiltBody<R>
  where R.Body: Reducer<State, Action> {
    _BuiltBody(reducer)
  }
}
