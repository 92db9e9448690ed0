import BulkheadDistribution
@_spi(Testing) import Bulkhead
import Foundation

/// Runs a recording again: sends the recorded outside actions, lets the effects send theirs
/// by themselves, and compares every action the store processes, in order, with the
/// recording — who sent it, what it is, and the state after it — until the first step that
/// differs. Effects sleep on a `ReplayClock` that moves only to wake the sleeps the next
/// recorded effect action waits for, so clock-driven effects come in the recorded order.
///
/// ```swift
/// let replayer = Replayer(recording: try Recording(contentsOf: "run.jsonl"))
/// _ = await app.drive(within: nil, by: replayer) { print($0) }
/// replayer.verdict  // .matched(steps: 6)
/// ```
@MainActor
final class Replayer: ScriptDriver {
  /// How long to wait for an effect action the recording has next, beyond the time it took
  /// to come in the recording: long enough for a loaded machine, short enough to report.
  static let patience: Duration = .seconds(10)
  /// The most of the recorded gap a replay waits in real time: effects sleep on the replay's
  /// clock, so only work that does not (a real delay) needs the time, and a recording of an
  /// hour's `hold` whose next action never comes must not hold the replay for an hour.
  static let longestGap = 50.0

  private let recording: Recording
  private(set) var verdict: ReplayVerdict?

  init(recording: Recording) {
    self.recording = recording
  }

  func drive<State: Sendable, Action: Sendable>(_ script: ActionScript<State, Action>) async {
    let coding = StepCoding<State, Action>()
    let sends: [Int: Action]
    do {
      try checkTypes(State.self, Action.self)
      try checkStates(coding)
      sends = try outsideActions(coding)
    } catch {
      verdict = .refused(error)
      return
    }
    var processed: [(source: RecordingFormat.Source, action: Action, state: State)] = []
    let watch = StepWatch<State, Action> { action, state, source in processed.append((source, action, state)) }
    let clock = ReplayClock()
    let store = Store(initialState: script.initialState) { WatchedReducer(root: script.root, watch: watch) } withDependencies: {
      $0.continuousClock = clock
    }
    // One signal for every change the loop waits on: an action processed, an effect finished
    // (both the store's own), an effect gone to sleep, and a step's patience run out.
    clock.onSleep { [weak store] in store?.signalChange() }
    var previousAt = 0.0
    for (index, step) in recording.steps.enumerated() {
      if processed.count <= index, let action = sends[index] {
        watch.willSend()
        store.send(action)
      }
      let deadline = ContinuousClock.now + Self.patience + .seconds(min(max(0, step.at - previousAt), Self.longestGap))
      previousAt = step.at
      let arrived = await wake(
        clock, until: ReplayClock.Instant(offset: .seconds(step.at)), on: store, deadline: deadline
      ) { processed.count > index }
      guard arrived else {
        verdict = .diverged(report: report(step: index + 1, line: step.line, recorded: (step.source, step.action), replayed: nil))
        return
      }
      let (source, action, state) = processed[index]
      let sameState: Bool
      do { sameState = try coding.state(state, matches: step.state) } catch {
        verdict = .diverged(report: "\(recording.file):\(step.line): step \(index + 1): the replayed state cannot be compared: \(error)")
        return
      }
      if source != step.source || "\(action)" != step.action || !sameState {
        verdict = .diverged(
          report: divergence(at: step, number: index + 1, source: source, action: "\(action)", state: state, sameState: sameState, coding))
        return
      }
    }
    if processed.count > recording.steps.count {
      let extra = processed[recording.steps.count]
      verdict = .diverged(report: report(step: recording.steps.count + 1, line: nil, recorded: nil, replayed: (extra.source, "\(extra.action)")))
      return
    }
    verdict = .matched(steps: recording.steps.count)
  }

  /// Wakes the clock's sleeps due by `limit`, one at a time and each only once what the last
  /// one woke has moved on (sent, slept again or finished), until `arrived` or `deadline`:
  /// effects due at one instant run in the order they slept. False when the deadline came first.
  private func wake<State, Action>(
    _ clock: ReplayClock, until limit: ReplayClock.Instant, on store: Store<State, Action>, deadline: ContinuousClock.Instant,
    arrived: () -> Bool
  ) async -> Bool {
    let timer = Task { [weak store] in
      guard (try? await Task.sleep(until: deadline)) != nil else { return }
      store?.signalChange()
    }
    defer { timer.cancel() }
    while !arrived() {
      let generation = store.changeGeneration
      if !clock.wakeNext(notAfter: limit), ContinuousClock.now >= deadline { return false }
      await store.waitForChange(after: generation)
    }
    return true
  }

  private func checkTypes(_ state: Any.Type, _ action: Any.Type) throws(RecordingError) {
    let types = (String(reflecting: state), String(reflecting: action))
    guard types == (recording.stateType, recording.actionType) else {
      throw RecordingError(
        file: recording.file, line: 1,
        reason: "the recording of \"\(recording.app)\" has state \(recording.stateType) and action \(recording.actionType); "
          + "this host's \"\(recording.app)\" has \(types.0) and \(types.1): it is a recording of another app")
    }
  }

  /// Refuses a step whose recorded state this app could not have written: encoded when the
  /// state is not `Codable`, a dump when it is, or an encoding that does not decode. Such a
  /// file is malformed, not a run that went another way.
  private func checkStates<State, Action>(_ coding: StepCoding<State, Action>) throws(RecordingError) {
    let codable = State.self is any Decodable.Type && State.self is any Encodable.Type
    for step in recording.steps {
      func wrong(_ reason: String) -> RecordingError { RecordingError(file: recording.file, line: step.line, reason: reason) }
      switch step.state {
      case .dump where codable:
        throw wrong("the step holds a \"dump\", but \(State.self) is Codable, so this app records its \"state\" encoded")
      case .encoded where !codable:
        throw wrong("the step holds an encoded \"state\", but \(State.self) is not Codable, so this app records a \"dump\"")
      case let .encoded(json):
        do { _ = try coding.state(from: json) } catch {
          throw wrong("\"state\" does not decode as \(String(reflecting: State.self)): \(DecodingErrorSummary(error, ofJSONThatParsed: true))")
        }
      case .dump:
        break
      }
    }
  }

  /// The outside actions, by step index, decoded from the recording.
  private func outsideActions<State, Action>(_ coding: StepCoding<State, Action>) throws(RecordingError) -> [Int: Action] {
    var actions: [Int: Action] = [:]
    for (index, step) in recording.steps.enumerated() where step.source == .outside {
      func wrong(_ reason: String) -> RecordingError { RecordingError(file: recording.file, line: step.line, reason: reason) }
      guard let sent = step.sent else {
        throw wrong("the outside action has no \"sent\" encoding (\(Action.self) is not Codable), so a replay cannot send it again")
      }
      do {
        guard let action = try coding.action(from: sent) else { throw wrong("\(Action.self) is not Codable, so a replay cannot send the action again") }
        actions[index] = action
      } catch let error as RecordingError {
        throw error
      } catch {
        throw wrong("\"sent\" does not decode as \(Action.self): \(error)")
      }
    }
    return actions
  }

  /// The first lines of a divergence: the step, where the recording has it, and each side's
  /// action (nil: none).
  private func report(
    step: Int, line: Int?, recorded: (source: RecordingFormat.Source, action: String)?,
    replayed: (source: RecordingFormat.Source, action: String)?
  ) -> String {
    """
    replay diverged at step \(step) (\(recording.file)\(line.map { ":\($0)" } ?? ", after its last step")):
      recorded: \(recorded.map { "\($0.source.rawValue) action \($0.action)" } ?? "nothing more")
      replayed: \(replayed.map { "\($0.source.rawValue) action \($0.action)" } ?? "nothing, by \(Self.patience) after the time it came in the recording (a recorded wait counts up to \(Int(Self.longestGap)) s)")
    """
  }

  private func divergence<State, Action>(
    at step: Recording.Step, number: Int, source: RecordingFormat.Source, action: String, state: State, sameState: Bool,
    _ coding: StepCoding<State, Action>
  ) -> String {
    let stateDiff: String
    switch (step.state, (try? coding.text(of: state)) ?? .dump(render(state).joined(separator: "\n"))) {
    case let (.encoded(recorded), .encoded(replayed)):
      stateDiff = (try? coding.state(from: recorded)).flatMap { $0 }.map { diff($0, state) } ?? diff(lines: [recorded], [replayed])
    case let (.dump(recorded), .dump(replayed)):
      stateDiff = diff(lines: recorded.components(separatedBy: "\n"), replayed.components(separatedBy: "\n"))
    case let (recorded, replayed):
      stateDiff = diff(lines: ["\(recorded)"], ["\(replayed)"])
    }
    let header = report(step: number, line: step.line, recorded: (step.source, step.action), replayed: (source, action))
    guard !sameState else { return header + "\n  the state after it is the same" }
    return header + "\n  state after it (− recorded, + replayed):\n" + stateDiff.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n")
  }
}
