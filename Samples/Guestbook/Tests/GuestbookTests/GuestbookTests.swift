import Bulkhead
import BulkheadDistribution
import BulkheadTesting
import Foundation
import Synchronization
import GuestbookFeature
import Testing

/// The same exhaustive script, with the composer in this process and in a worker that is the
/// `guestbook` executable started in its worker role.
@MainActor
@Suite(.serialized) struct GuestbookTests {
  @Test func signingInOneProcess() async {
    await signAndCancel { Guestbook() }
  }

  @Test func signingWithTheComposerInAWorker() async throws {
    let composition = try Composition(
      root: Guestbook(), placement: Placement(parsing: "composer\n", file: "guestbook.placement"),
      command: .executable(named: "guestbook", app: "guestbook"))
    defer { composition.shutdown() }
    await signAndCancel { composition.compose(Guestbook()) }
    #expect(composition.processes.map(\.boundary) == ["composer"])
    #expect(composition.statistics(of: "composer")?.actions ?? 0 >= 5)
  }

  @Test func theHostsModeratorAnswersTheWorker() async throws {
    let composition = try Composition(
      root: Guestbook(), placement: Placement(parsing: "composer\n", file: "guestbook.placement"),
      command: .executable(named: "guestbook", app: "guestbook"))
    defer { composition.shutdown() }
    let asked = Mutex<[String]>([])
    let store = TestStore(initialState: Guestbook.State(composer: Composer.State(message: "Buy spam"))) {
      composition.compose(Guestbook())
    } withDependencies: {
      $0.moderator = Moderator { message in
        asked.withLock { $0.append(message) }
        return false
      }
    }
    await store.send(.composer(.saveButtonTapped)) {
      $0.composer?.rejection = "The moderator turned this message down."
    }
    // The composer ran in its worker, and asked this process's moderator.
    #expect(composition.statistics(of: "composer")?.actions == 1)
    #expect(asked.withLock { $0 } == ["Buy spam"])
  }

  /// Signs with test dependencies set on the host: the worker's uuid, date and clock must be
  /// the host's.
  private func signAndCancel<R: Reducer<Guestbook.State, Guestbook.Action>>(
    _ reducer: () -> R
  ) async {
    let clock = TestClock()
    let signedAt = Date(timeIntervalSince1970: 1_234_567_890)
    let store = TestStore(initialState: Guestbook.State(), reducer: reducer) {
      $0.uuid = .incrementing
      $0.date = .constant(signedAt)
      $0.continuousClock = clock
    }
    let entry = Entry(
      id: UUID(uuidString: "00000000-0000-0000-0000-000000000000")!, name: "Blob",
      message: "Lovely place!", signedAt: signedAt)
    await store.send(.signButtonTapped) { $0.composer = Composer.State() }
    await store.send(.composer(.nameChanged("Blob"))) { $0.composer?.name = "Blob" }
    await store.send(.composer(.messageChanged("Lovely place!"))) { $0.composer?.message = "Lovely place!" }
    await store.send(.composer(.saveButtonTapped)) { $0.composer?.isSaving = true }
    await clock.advance(by: Composer.saveDuration)
    await store.receive(.composer(.delegate(.signed(entry)))) {
      $0.entries = [entry]
      $0.composer = nil
    }
    await store.send(.signButtonTapped) { $0.composer = Composer.State() }
    await store.send(.composer(.cancelButtonTapped))
    await store.receive(.composer(.delegate(.cancelled))) { $0.composer = nil }
  }
}
