import Bulkhead

/// A reusable reducer that writes the uppercased text at `input` to `output` whenever an
/// action of case `triggerAction` arrives: the seed's higher-order reducer, generic over key
/// paths and a case path.
///
/// ```swift
/// UppercasedReducer(input: \.text, output: \.uppercasedText, triggerAction: .didTapShoutButton)
/// UppercasedReducer(input: \.draft, output: \.title, triggerAction: Action.submitted)
/// ```
public struct UppercasedReducer<State, Action: Sendable, UppercaseAction>: Reducer {
  let input: KeyPath<State, String>
  let output: WritableKeyPath<State, String>
  let trigger: CasePath<Action, UppercaseAction>

  public init(
    input: KeyPath<State, String>, output: WritableKeyPath<State, String>,
    triggerAction: CasePath<Action, UppercaseAction>
  ) {
    self.input = input
    self.output = output
    self.trigger = triggerAction
  }

  /// Triggered by a case with a payload, named by the case: `triggerAction: Action.submitted`.
  public init(
    input: KeyPath<State, String>, output: WritableKeyPath<State, String>,
    triggerAction: @escaping @Sendable (UppercaseAction) -> Action
  ) {
    self.init(input: input, output: output, triggerAction: CasePath(triggerAction))
  }

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    if trigger.extract(from: action) != nil {
      state[keyPath: output] = state[keyPath: input].uppercased()
    }
    return .none
  }
}

extension UppercasedReducer where UppercaseAction == Void {
  /// Triggered by a case without payload, named by its value: `triggerAction: .didTap`.
  public init(
    input: KeyPath<State, String>, output: WritableKeyPath<State, String>, triggerAction: Action
  ) {
    self.init(input: input, output: output, triggerAction: CasePath(case: triggerAction))
  }
}

/// The seed's "Shouting text": type a text, tap the button, see it uppercased.
public struct ShoutingText: Reducer {
  public struct State: Equatable, Codable, Sendable {
    public var text = ""
    public var uppercasedText = ""
    public init(text: String = "") { self.text = text }
  }

  public enum Action: Equatable, Sendable, BindableAction {
    case binding(BindingAction<State>)
    case didTapShoutButton
  }

  public init() {}

  public var body: some Reducer<State, Action> {
    BindingReducer()
    UppercasedReducer(input: \.text, output: \.uppercasedText, triggerAction: .didTapShoutButton)
  }
}
