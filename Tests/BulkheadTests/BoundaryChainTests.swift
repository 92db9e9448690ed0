import Bulkhead
import Examples
import Synchronization
import Testing

/// The boundaries inside a presented destination and inside stack screens are listed, and a
/// composition's runner hears, for a child at any depth, the ids of the elements above it, and
/// of every child that leaves with its parent.
@MainActor
struct BoundaryChainTests {
  @Test func theBoundariesInsideADestinationAndAStackScreenAreListedUnderTheirOperators() {
    #expect(
      Notes().boundaries.map(\.description) == [
        "path (forEach → Path)", "path.detail (Scope → Detail)", "path.info (Scope → Info)",
        "destination (ifLet → Destination)", "destination.editor (Scope → Editor)",
      ])
  }

  @Test func aChildInAStackScreenIsNamedByTheScreensIdAndLeavesWithIt() {
    let runner = RecordingRunner()
    let store = Store(initialState: Notes.State()) {
      _ComposedReducer(base: Notes(), context: BoundaryContext(runner: runner, placed: ["path.detail"]))
    }
    store.send(.noteTapped(id: 0))
    store.send(.noteTapped(id: 0))
    store.send(.path(.element(id: 1, action: .detail(.bodyChanged("Tea")))))
    store.send(.path(.element(id: 0, action: .detail(.bodyChanged("Milk")))))
    #expect(
      runner.ran == [
        "path [#1]", "path.detail [#1]", "path [#0]", "path.detail [#0]",
      ])
    // Popping the lower screen takes both: the runner hears of each, at the stack's path.
    store.send(.path(.popFrom(id: 0)))
    #expect(runner.removed == ["path [#0]", "path [#1]"])
  }

  @Test func aChildInAPresentedDestinationHasNoElementsAndLeavesWhenItIsDismissed() {
    let runner = RecordingRunner()
    let store = Store(initialState: Notes.State()) {
      _ComposedReducer(base: Notes(), context: BoundaryContext(runner: runner, placed: ["destination.editor"]))
    }
    store.send(.addButtonTapped)
    store.send(.destination(.presented(.editor(.titleChanged("Tea")))))
    #expect(runner.ran == ["destination []", "destination.editor []"])
    store.send(.destination(.dismiss))
    #expect(runner.removed == ["destination []"])
    // Another case of the destination takes the editor's place: the editor left.
    store.send(.addButtonTapped)
    store.send(.deleteButtonTapped(id: 0))
    #expect(runner.removed == ["destination []", "destination []"])
  }

  @Test func aForEachInsideARowIsNamedByBothIds() {
    let runner = RecordingRunner()
    let store = Store(initialState: Shelves.State()) {
      _ComposedReducer(base: Shelves(), context: BoundaryContext(runner: runner, placed: ["shelves.books"]))
    }
    store.send(.shelves(.element(id: "b", action: .books(.element(id: 2, action: .read)))))
    #expect(runner.ran == ["shelves [b]", "shelves.books [b, 2]"])
    #expect(store.state.shelves[id: "b"]?.books[id: 2]?.reads == 1)
    store.send(.removeShelf("b"))
    #expect(runner.removed == ["shelves [b]"])
  }

  @Test func aRunnerThatPlacesTheChildKeepsOneStatePerScreen() {
    let runner = RecordingRunner(places: "path.detail")
    let store = Store(initialState: Notes.State()) {
      _ComposedReducer(base: Notes(), context: BoundaryContext(runner: runner, placed: ["path.detail"]))
    }
    store.send(.noteTapped(id: 0))
    store.send(.noteTapped(id: 0))
    store.send(.path(.element(id: 1, action: .detail(.bodyChanged("Tea")))))
    #expect(runner.ran == ["path.detail [#1]"])
    guard case let .detail(top)? = store.state.path[id: 1], case let .detail(bottom)? = store.state.path[id: 0] else {
      Issue.record("both screens are details")
      return
    }
    #expect(top.note.body == "Tea")
    #expect(bottom.note.body == "")
    #expect(runner.placedRuns == 1)
  }
}

/// Runs every child here, as a plain store would, or only `places` itself, and writes down
/// each boundary it was asked about and each child removal, with the element ids.
private final class RecordingRunner: BoundaryRunner {
  private let log = Mutex<(ran: [String], removed: [String], placedRuns: Int)>(([], [], 0))
  private let places: String?

  init(places: String? = nil) { self.places = places }

  var ran: [String] { log.withLock { $0.ran } }
  var removed: [String] { log.withLock { $0.removed } }
  var placedRuns: Int { log.withLock { $0.placedRuns } }

  func reduce<Child: Reducer>(
    _ child: Child, atBoundary path: String, elements: [any Sendable],
    into state: inout Child.State, action: Child.Action
  ) -> Effect<Child.Action>? {
    guard places == nil || places == path else { return nil }
    log.withLock { $0.ran.append(Self.entry(path, elements)) }
    guard places == path else { return nil }
    log.withLock { $0.placedRuns += 1 }
    return child.reduce(into: &state, action: action)
  }

  func childRemoved(atBoundary path: String, elements: [any Sendable]) {
    log.withLock { $0.removed.append(Self.entry(path, elements)) }
  }

  private static func entry(_ path: String, _ elements: [any Sendable]) -> String {
    "\(path) [\(elements.map { "\($0)" }.joined(separator: ", "))]"
  }
}

/// Shelves of books: a `forEach` inside each element of a `forEach`.
private struct Shelves: Reducer {
  struct Book: Equatable, Sendable, Identifiable {
    let id: Int
    var reads = 0
  }

  struct Shelf: Equatable, Sendable, Identifiable {
    let id: String
    var books: IdentifiedArrayOf<Book> = [Book(id: 1), Book(id: 2)]
  }

  struct State: Equatable, Sendable {
    var shelves: IdentifiedArrayOf<Shelf> = [Shelf(id: "a"), Shelf(id: "b")]
  }

  enum Action: Equatable, Sendable {
    case shelves(IdentifiedAction<String, ShelfAction>)
    case removeShelf(String)
  }

  enum ShelfAction: Equatable, Sendable {
    case books(IdentifiedAction<Int, BookAction>)
  }

  enum BookAction: Equatable, Sendable { case read }

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      if case let .removeShelf(id) = action { state.shelves.remove(id: id) }
      return .none
    }
    .forEach(\.shelves, action: Action.shelves) {
      EmptyReducer<Shelf, ShelfAction>()
        .forEach(\.books, action: ShelfAction.books) {
          Reduce<Book, BookAction> { book, _ in
            book.reads += 1
            return .none
          }
        }
    }
  }
}
