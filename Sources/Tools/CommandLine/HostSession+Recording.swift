import Bulkhead
import BulkheadDistribution
import Foundation

extension HostSession {
  /// Runs the app's script as `run(hold:)` does, and writes the recording of the run to
  /// `file`: every action the root store processed, with the state after it.
  func record(into file: String, hold: Bool) async throws(RecordingError) {
    var outcome: Result<Bool, RecordingError> = .success(false)
    // The file is made inside the run, so that a file that cannot be made still ends the run
    // as usual: the workers stopped, the sockets removed.
    await run { app, context, log in
      do throws(RecordingError) {
        let recorder = try RunRecorder(file: file, app: app.name, placement: placement.file, hold: hold)
        let driven = await app.drive(within: context, by: recorder, log: log)
        outcome = recorder.failure.map { .failure(RecordingError(file: file, line: 0, reason: $0)) } ?? .success(driven)
      } catch {
        outcome = .failure(error)
      }
    }
    guard try outcome.get() else {
      // Nothing ran, so the file made for it holds nothing.
      try? FileManager.default.removeItem(atPath: file)
      throw Self.notAnActionList(app, file: file)
    }
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
