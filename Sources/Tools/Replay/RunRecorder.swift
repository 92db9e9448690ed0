import Bulkhead
import BulkheadDistribution
import Foundation

/// Runs an app's script as usual and writes its recording: a header, then each action the
/// root store processes — the script's and its effects' — with the state after it, one line
/// each, written as it happens so that a run stopped by a signal leaves every line before.
///
/// ```swift
/// let recorder = try RunRecorder(file: "run.jsonl", app: app, placement: placement, hold: false)
/// _ = await app.drive(within: nil, by: recorder) { print($0) }
/// ```
@MainActor
final class RunRecorder: ScriptDriver {
  private let output: FileHandle
  private let path: String
  private let app: String
  private let placement: String
  private let hold: Bool
  /// What went wrong writing, reported once the run ends.
  private(set) var failure: String?

  /// Creates (or empties) the file at `path`.
  init(file path: String, app: String, placement: String, hold: Bool) throws(RecordingError) {
    guard FileManager.default.createFile(atPath: path, contents: nil), let output = FileHandle(forWritingAtPath: path) else {
      throw RecordingError(file: path, line: 0, reason: "the recording cannot be created here (check the directory exists and is writable)")
    }
    self.output = output
    self.path = path
    self.app = app
    self.placement = placement
    self.hold = hold
  }

  func drive<State: Sendable, Action: Sendable>(_ script: ActionScript<State, Action>) async {
    let coding = StepCoding<State, Action>()
    if !coding.actionsAreCodable {
      script.log("recording: \(Action.self) is not Codable, so \(path) can be read but not replayed")
    }
    write {
      try RecordingFormat.header(
        app: app, placement: placement, stateType: String(reflecting: State.self), actionType: String(reflecting: Action.self))
    }
    let start = ContinuousClock.now
    var count = 0
    let watch = StepWatch<State, Action> { [self] action, state, source in
      count += 1
      let seconds = (ContinuousClock.now - start) / .seconds(1)
      write {
        try RecordingFormat.step(
          count, from: source, at: seconds, action: "\(action)", sent: source == .outside ? try coding.sent(action) : nil,
          state: try coding.text(of: state))
      }
    }
    let store = Store(initialState: script.initialState) { WatchedReducer(root: script.root, watch: watch) }
    script.log("state: \(script.initialState)")
    await script.play(on: store, willSend: { _ in watch.willSend() })
    script.log("recording: \(count) steps written to \(path)")
    if hold { await ScriptedApp.holdOpen(store, log: script.log) }
  }

  /// Writes the line `make` makes; the first failure is kept, and nothing more written.
  private func write(_ make: () throws -> String) {
    guard failure == nil else { return }
    do {
      try output.write(contentsOf: Data((try make() + "\n").utf8))
    } catch {
      failure = "the recording could not be written: \(error)"
    }
  }
}
