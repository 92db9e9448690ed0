import Bulkhead
import BulkheadDistribution
import Foundation

/// The root store of a running app as `./compose.sh send` and `state` reach it: actions read
/// from text with the action's own `Decodable` (`ActionReader`), and the state printed as
/// `run` prints it or encoded as JSON.
///
/// ```swift
/// composition.liveRoot.publish(StoreConsole(store: store, boundaries: ["counter1", "counter2"], awaitingEffects: true))
/// ```
@MainActor
final class StoreConsole<State, Action: Sendable>: LiveRoot {
  private let store: Store<State, Action>
  /// The paths of the app's boundaries, which `state` takes.
  private let boundaries: [String]
  /// Whether `send` waits for each action's effects, as the app's script does.
  private let awaitingEffects: Bool

  /// How long `send` waits for an action's effects before it shows the state all the same:
  /// less than a control client waits for an answer.
  static var effectsWait: Duration { .seconds(3) }

  /// Told before each action `send` sends, so that the store's watch takes it for one
  /// from outside, not from an effect.
  private let willSend: () -> Void

  init(store: Store<State, Action>, boundaries: [String], awaitingEffects: Bool, willSend: @escaping () -> Void = {}) {
    self.store = store
    self.boundaries = boundaries
    self.awaitingEffects = awaitingEffects
    self.willSend = willSend
  }

  func send(_ texts: [String]) async throws(ControlError) -> [Wire.SentAction] {
    guard let decodable = Action.self as? any Decodable.Type else {
      throw .notDecodable(type: String(reflecting: Action.self))
    }
    var actions: [Action] = []
    for (index, text) in texts.enumerated() {
      do {
        actions.append(try Self.read(text, as: decodable))
      } catch {
        throw .actionUnreadable(index: index, message: error.pointing(at: text))
      }
    }
    var sent: [Wire.SentAction] = []
    for action in actions {
      willSend()
      let effects = store.send(action)
      let finished = awaitingEffects ? await Self.finish(effects, within: Self.effectsWait) : effects.isCancelled
      sent.append(Wire.SentAction(action: "\(action)", state: "\(store.state)", effectsRunning: !finished))
    }
    return sent
  }

  /// Waits for `effects` to finish, up to `limit`, without cancelling them: whether they did.
  private static func finish(_ effects: StoreTask, within limit: Duration) async -> Bool {
    let (ends, end) = AsyncStream<Bool>.makeStream()
    Task {
      await effects.finish()
      end.yield(true)
    }
    let timer = Task {
      try? await Task.sleep(for: limit)
      end.yield(false)
    }
    var finished = false
    for await outcome in ends {
      finished = outcome
      break
    }
    // Only the timer stops: cancelling the wait would cancel the effects.
    timer.cancel()
    return finished
  }

  /// The action that `text` spells, read by `Decodable`, the type `Action` stands for.
  private static func read<Readable: Decodable>(_ text: String, as _: Readable.Type) throws(ActionSyntaxError) -> Action {
    let value = try ActionReader.read(Readable.self, from: text)
    guard let action = value as? Action else {
      throw ActionSyntaxError(column: 1, problem: "\(Readable.self) is not the app's action \(Action.self)")
    }
    return action
  }

  func state(of boundary: String?, json: Bool) throws(ControlError) -> String {
    var value: Any = store.state
    if let boundary {
      guard boundaries.contains(boundary), let found = StatePath.find(boundary, in: store.state) else {
        throw .noStateAt(boundary: boundary, known: boundaries)
      }
      value = found
    }
    guard json else { return StatePath.printed(value) }
    guard let encodable = value as? any Encodable else {
      throw .notEncodable(type: String(reflecting: type(of: value)))
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    do {
      return String(decoding: try encoder.encode(encodable), as: UTF8.self)
    } catch {
      throw .notEncodable(type: "\(String(reflecting: type(of: value))) (\(error))")
    }
  }
}
