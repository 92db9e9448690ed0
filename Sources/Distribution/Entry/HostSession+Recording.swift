import Bulkhead

extension HostSession {
  /// Runs the app's script as `run(hold:)` does, and writes the recording of the run to
  /// `file`: every action the root store processed, with the state after it.
  func record(into file: String, hold: Bool) async throws(RecordingError) {
    let recorder = try RunRecorder(file: file, app: app.name, placement: placement.file, hold: hold)
    var driven = false
    await run { app, context, log in driven = await app.drive(within: context, by: recorder, log: log) }
    guard driven else { throw Self.notAnActionList(app, file: file) }
    if let failure = recorder.failure { throw RecordingError(file: file, line: 0, reason: failure) }
  }

  /// Runs `recording` again with this session's placement and says what it found.
  func replay(_ recording: Recording) async throws(RecordingError) -> ReplayVerdict {
    let replayer = Replayer(recording: recording)
    var driven = false
    await run { app, context, log in driven = await app.drive(within: context, by: replayer, log: log) }
    guard driven, let verdict = replayer.verdict else { throw Self.notAnActionList(app, file: recording.file) }
    return verdict
  }

  private static func notAnActionList(_ app: ScriptedApp, file: String) -> RecordingError {
    RecordingError(
      file: file, line: 0,
      reason: "the app \"\(app.name)\" drives its store with a script of its own; only an app made from a list of actions is recorded and replayed")
  }
}
