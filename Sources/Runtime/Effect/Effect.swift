/// The work a reducer asks the store to do after a state change: send more actions now, run
/// asynchronous work that sends actions later, or cancel work in flight.
///
/// ```swift
/// case .saveButtonTapped:
///   return .run { [form = state] send in
///     try await api.save(form)
///     await send(.saveResponse(.success(())))
///   } catch: { error, send in
///     await send(.saveResponse(.failure(error)))
///   }
/// ```
public struct Effect<Action: Sendable>: Sendable {
  package indirect enum Operation: Sendable {
    case none
    case send(Action)
    case run(priority: TaskPriority?, body: @Sendable (Send<Action>) async -> Void)
    case merge([Effect])
    case concatenate([Effect])
    case cancellable(CancelKey, cancelInFlight: Bool, Effect)
    case cancel(CancelKey)
  }

  package let operation: Operation

  package init(_ operation: Operation) { self.operation = operation }

  /// An effect that does nothing.
  ///
  /// ```swift
  /// case .incrementButtonTapped:
  ///   state.count += 1
  ///   return .none
  /// ```
  public static var none: Self { Self(.none) }

  /// Sends `action` to the store in the same pass, after the actions already waiting there.
  ///
  /// ```swift
  /// return .send(.delegate(.didFinish))
  /// ```
  public static func send(_ action: Action) -> Self { Self(.send(action)) }

  /// Runs `operation` as an asynchronous task that can send actions back to the store.
  ///
  /// Errors that `operation` throws go to `handler`; without one, an error other than
  /// cancellation is reported as a runtime warning naming this call's file and line. The
  /// dependencies in force when the effect is created stay in force inside it.
  ///
  /// ```swift
  /// return .run { send in
  ///   try await clock.sleep(for: .seconds(1))
  ///   await send(.timerTicked)
  /// }
  /// ```
  public static func run(
    priority: TaskPriority? = nil,
    operation: @escaping @Sendable (_ send: Send<Action>) async throws -> Void,
    catch handler: (@Sendable (_ error: any Error, _ send: Send<Action>) async -> Void)? = nil,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> Self {
    let dependencies = DependencyValues.current
    let location = SourceLocation(fileID: fileID, line: line)
    return Self(
      .run(priority: priority) { send in
        let lifetime = EffectLifetime()
        defer { lifetime.end() }
        let send = send.reportingUse(after: lifetime, of: location, to: .current)
        await DependencyValues.withValues(dependencies) {
          do {
            try await operation(send)
          } catch is CancellationError where Task.isCancelled {
            return
          } catch {
            guard let handler else {
              RuntimeWarning.report(
                """
                An "Effect.run" at \(location) threw an unhandled error: \(error)

                To fix it, handle the error with the "catch:" closure of "Effect.run" (for \
                example by sending a failure action), or with "do"/"catch" inside the effect.
                """, at: location)
              return
            }
            await handler(error, send)
          }
        }
      })
  }

  /// Runs all `effects` at the same time.
  ///
  /// ```swift
  /// return .merge(.send(.started), .run { send in await send(.loaded(try await load())) })
  /// ```
  public static func merge(_ effects: Self...) -> Self { merge(effects) }

  /// Runs all `effects` at the same time.
  public static func merge(_ effects: some Sequence<Self>) -> Self {
    let running = effects.filter { if case .none = $0.operation { false } else { true } }
    switch running.count {
    case 0: return .none
    case 1: return running[0]
    default: return Self(.merge(running))
    }
  }

  /// Runs `effects` one after another, each starting when the one before it has finished.
  ///
  /// ```swift
  /// return .concatenate(.cancel(id: CancelID.timer), .send(.timerStopped))
  /// ```
  public static func concatenate(_ effects: Self...) -> Self { concatenate(effects) }

  /// Runs `effects` one after another, each starting when the one before it has finished.
  public static func concatenate(_ effects: some Sequence<Self>) -> Self {
    let running = effects.filter { if case .none = $0.operation { false } else { true } }
    switch running.count {
    case 0: return .none
    case 1: return running[0]
    default: return Self(.concatenate(running))
    }
  }

  /// Runs this effect and then `other`.
  public func concatenate(with other: Self) -> Self { .concatenate(self, other) }

  /// Runs this effect and `other` at the same time.
  @inline(__always)
  public func merge(with other: Self) -> Self {
    // Reducers in sequence merge their effects on every action; with one of them `.none`
    // that is no merge, and no array.
    if case .none = operation { return other }
    if case .none = other.operation { return self }
    return .merge(self, other)
  }

  /// Turns the actions this effect sends into actions of another domain.
  ///
  /// ```swift
  /// Counter().reduce(into: &state.counter, action: action).map(Action.counter)
  /// ```
  @inline(__always)
  public func map<NewAction: Sendable>(
    _ transform: @escaping @Sendable (Action) -> NewAction
  ) -> Effect<NewAction> {
    // Most actions return no effect: that case costs one comparison where it is inlined.
    if case .none = operation { return .none }
    return mapping(transform)
  }

  @inline(never)
  func mapping<NewAction: Sendable>(
    _ transform: @escaping @Sendable (Action) -> NewAction
  ) -> Effect<NewAction> {
    switch operation {
    case .none:
      return .none
    case let .send(action):
      return .send(transform(action))
    case let .run(priority, body):
      return Effect<NewAction>(
        .run(priority: priority) { send in await body(send.map(transform)) })
    case let .merge(effects):
      return Effect<NewAction>(.merge(effects.map { $0.map(transform) }))
    case let .concatenate(effects):
      return Effect<NewAction>(.concatenate(effects.map { $0.map(transform) }))
    case let .cancellable(key, cancelInFlight, effect):
      return Effect<NewAction>(.cancellable(key, cancelInFlight: cancelInFlight, effect.map(transform)))
    case let .cancel(key):
      return Effect<NewAction>(.cancel(key))
    }
  }

  /// True when this effect does nothing.
  public var isNone: Bool {
    if case .none = operation { true } else { false }
  }
}
