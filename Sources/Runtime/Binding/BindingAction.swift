/// An action that sets one field of the state, as a text field or a toggle bound to the state
/// would send it.
///
/// ```swift
/// store.send(.binding(.set(\.name, "Blob")))
/// // In a parent reducer:
/// case .binding(\.name): return .send(.validate)
/// ```
public struct BindingAction<Root>: Sendable, CustomStringConvertible {
  let keyPath: AnyHashableSendable
  let apply: @Sendable (inout Root) -> Void
  let value: any Sendable
  private let isEqual: @Sendable (any Sendable) -> Bool

  /// Sets the field at `keyPath` to `value`.
  public static func set<Value: Equatable & Sendable>(
    _ keyPath: WritableKeyPath<Root, Value> & Sendable, _ value: Value
  ) -> Self {
    Self(
      keyPath: AnyHashableSendable(keyPath: keyPath), apply: { $0[keyPath: keyPath] = value },
      value: value, isEqual: { ($0 as? Value) == value })
  }

  public var description: String { ".set(\(keyPath.base), \(value))" }

  /// Matches a binding action by the field it sets: `case .binding(\.name):`.
  public static func ~= <Value>(keyPath: WritableKeyPath<Root, Value>, action: Self) -> Bool {
    action.keyPath == AnyHashableSendable(keyPath: keyPath)
  }
}

extension BindingAction: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.keyPath == rhs.keyPath && lhs.isEqual(rhs.value)
  }
}

/// An action with a case for binding actions, which `BindingReducer` applies.
///
/// ```swift
/// enum Action: BindableAction {
///   case binding(BindingAction<State>)
/// }
/// ```
public protocol BindableAction: Sendable {
  associatedtype State
  static func binding(_ action: BindingAction<State>) -> Self
}

/// Applies binding actions to the state. Put it before the feature's own logic so that the
/// logic sees the new values.
///
/// ```swift
/// var body: some Reducer<State, Action> {
///   BindingReducer()
///   Reduce { state, action in ... }
/// }
/// ```
public struct BindingReducer<State, Action: BindableAction>: Reducer where Action.State == State {
  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    CasePath(Action.binding).extract(from: action)?.apply(&state)
    return .none
  }
}
