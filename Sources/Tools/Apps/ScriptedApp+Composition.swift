import Bulkhead
import BulkheadDistribution

extension ScriptedApp {
  /// Runs the script, handing each line of output to `log`; with `composition`, the
  /// boundaries it places run in its workers, and without, every boundary runs here. With
  /// `hold`, the store lives on after the script, and every state its effects bring is
  /// logged, until the task is cancelled or the process stopped.
  ///
  /// ```swift
  /// await ScriptedApp.guestbook.run(in: composition) { print($0) }
  /// ```
  @MainActor
  public func run(
    in composition: Composition?, hold: Bool = false, log: @escaping @Sendable (String) -> Void
  ) async {
    await run(
      within: composition?.boundaryContext,
      hold: hold ? Hold { [composition] in composition?.liveRoot.publish($0) } : nil, log: log)
  }

  /// Runs the script as `run(in:hold:log:)` does, with `observer` seeing every action the
  /// root reducer runs.
  @MainActor
  package func run(in composition: Composition?, observer: RootObserver, log: @escaping @Sendable (String) -> Void) async {
    await run(within: composition?.boundaryContext, hold: nil, observer: observer, log: log)
  }
}
