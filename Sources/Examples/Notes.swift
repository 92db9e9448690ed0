import Bulkhead

/// Navigation without macros: a list of notes with one presented destination — a sheet that
/// adds a note and dismisses itself once saved, an alert that confirms a deletion, a
/// confirmation dialog that offers to clear everything — and a navigation stack: a note's
/// detail, where a reading timer runs and "Done" saves and pops itself, and above it the
/// note's info.
public struct Notes: Reducer {
  public struct Note: Equatable, Codable, Sendable, Identifiable {
    public let id: Int
    public var title: String
    public var body: String
    public init(id: Int, title: String, body: String = "") {
      self.id = id
      self.title = title
      self.body = body
    }
  }

  public struct State: Equatable, Codable, Sendable {
    public var notes: IdentifiedArrayOf<Note>
    public var nextNoteID: Int
    @PresentationState public var destination: Destination.State?
    public var path: StackState<Path.State>

    public init(
      notes: IdentifiedArrayOf<Note> = [Note(id: 0, title: "Welcome")],
      destination: Destination.State? = nil, path: StackState<Path.State> = []
    ) {
      self.notes = notes
      self.nextNoteID = (notes.ids.max() ?? -1) + 1
      self.destination = destination
      self.path = path
    }
  }

  public enum Action: Equatable, Codable, Sendable {
    case addButtonTapped
    case clearButtonTapped
    case deleteButtonTapped(id: Int)
    case noteTapped(id: Int)
    case destination(PresentationAction<Destination.Action>)
    case path(StackActionOf<Path>)
  }

  /// Everything the list presents, one case each. Written by hand where TCA writes
  /// `@Reducer enum`: an enum state, an enum action, and a `Scope` for each case that has a
  /// reducer (the alert and the dialog have none).
  public struct Destination: Reducer {
    public enum State: Equatable, Codable, Sendable {
      case editor(Editor.State)
      case alert(AlertState<Alert>)
      case dialog(ConfirmationDialogState<Dialog>)
    }

    public enum Action: Equatable, Codable, Sendable {
      case editor(Editor.Action)
      case alert(Alert)
      case dialog(Dialog)
    }

    public enum Alert: Equatable, Codable, Sendable {
      case confirmDeletion(id: Int)
    }

    public enum Dialog: Equatable, Codable, Sendable {
      case clearAll
    }

    public init() {}

    public var body: some Reducer<State, Action> {
      Scope(state: State.editor, action: Action.editor) { Editor() }
    }
  }

  /// The screens the stack can push, in the same hand-written style.
  public struct Path: Reducer {
    public enum State: Equatable, Codable, Sendable {
      case detail(Detail.State)
      case info(Info.State)
    }

    public enum Action: Equatable, Codable, Sendable {
      case detail(Detail.Action)
      case info(Info.Action)
    }

    public init() {}

    public var body: some Reducer<State, Action> {
      Scope(state: State.detail, action: Action.detail) { Detail() }
      Scope(state: State.info, action: Action.info) { Info() }
    }
  }

  public init() {}

  public var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .addButtonTapped:
        state.destination = .editor(Editor.State())
        return .none
      case .clearButtonTapped:
        state.destination = .dialog(.clearAll)
        return .none
      case let .deleteButtonTapped(id):
        guard let note = state.notes[id: id] else { return .none }
        state.destination = .alert(.deletion(of: note))
        return .none
      case let .noteTapped(id):
        guard let note = state.notes[id: id] else { return .none }
        state.path.append(.detail(Detail.State(note: note)))
        return .none
      case let .destination(.presented(.editor(.delegate(.save(title))))):
        state.notes.append(Note(id: state.nextNoteID, title: title))
        state.nextNoteID += 1
        return .none
      case let .destination(.presented(.alert(.confirmDeletion(id)))):
        state.notes.remove(id: id)
        // A detail of the deleted note leaves the stack, with everything above it.
        if let shown = zip(state.path.ids, state.path).first(where: { $0.1.noteID == id }) {
          state.path.pop(from: shown.0)
        }
        return .none
      case .destination(.presented(.dialog(.clearAll))):
        state.notes = []
        state.path.removeAll()
        return .none
      case .destination:
        return .none
      case let .path(.element(_, .detail(.delegate(.save(note))))):
        state.notes[id: note.id] = note
        return .none
      case let .path(.element(id, .detail(.infoButtonTapped))):
        guard case let .detail(detail)? = state.path[id: id] else { return .none }
        state.path.append(.info(Info.State(note: detail.note)))
        return .none
      case .path(.element(_, .info(.backToListButtonTapped))):
        state.path.removeAll()
        return .none
      case .path:
        return .none
      }
    }
    .ifLet(\.$destination, action: Action.destination) { Destination() }
    .forEach(\.path, action: Action.path) { Path() }
  }

  /// The sheet that adds a note: saving takes a moment on the clock, hands the title to the
  /// list, and dismisses the sheet.
  public struct Editor: Reducer, Sendable {
    public struct State: Equatable, Codable, Sendable {
      public var title = ""
      public var isSaving = false
      public init(title: String = "") { self.title = title }
    }

    public enum Action: Equatable, Codable, Sendable {
      case titleChanged(String)
      case saveButtonTapped
      case cancelButtonTapped
      case delegate(Delegate)

      public enum Delegate: Equatable, Codable, Sendable {
        case save(title: String)
      }
    }

    @Dependency(\.continuousClock) var clock
    @Dependency(\.dismiss) var dismiss

    public init() {}

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case let .titleChanged(title):
        state.title = title
        return .none
      case .saveButtonTapped:
        state.isSaving = true
        return .run { [title = state.title] send in
          try await clock.sleep(for: .milliseconds(200))
          await send(.delegate(.save(title: title)))
          await dismiss()
        }
      case .cancelButtonTapped:
        return .run { _ in await dismiss() }
      case .delegate:
        return .none
      }
    }
  }

  /// A pushed note: edit its text, read it with a timer running, and "Done" saves it and pops
  /// the screen.
  public struct Detail: Reducer, Sendable {
    public struct State: Equatable, Codable, Sendable {
      public var note: Note
      public var secondsRead = 0
      public var isReading = false
      public init(note: Note) { self.note = note }
    }

    public enum Action: Equatable, Codable, Sendable {
      case bodyChanged(String)
      case readButtonTapped
      case stopButtonTapped
      case timerTicked
      case infoButtonTapped
      case doneButtonTapped
      case delegate(Delegate)

      public enum Delegate: Equatable, Codable, Sendable {
        case save(Note)
      }
    }

    private enum CancelID { case reading }

    @Dependency(\.continuousClock) var clock
    @Dependency(\.dismiss) var dismiss

    public init() {}

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case let .bodyChanged(body):
        state.note.body = body
        return .none
      case .readButtonTapped:
        state.isReading = true
        return .run { send in
          while true {
            try await clock.sleep(for: .seconds(1))
            await send(.timerTicked)
          }
        }
        .cancellable(id: CancelID.reading, cancelInFlight: true)
      case .stopButtonTapped:
        state.isReading = false
        return .cancel(id: CancelID.reading)
      case .timerTicked:
        state.secondsRead += 1
        return .none
      case .infoButtonTapped, .delegate:
        return .none
      case .doneButtonTapped:
        return .run { [note = state.note] send in
          await send(.delegate(.save(note)))
          await dismiss()
        }
      }
    }
  }

  /// A note's info, pushed above its detail: close it, or go back to the list at once.
  public struct Info: Reducer, Sendable {
    public struct State: Equatable, Codable, Sendable {
      public var title: String
      public var words: Int
      public init(note: Note) {
        title = note.title
        words = note.body.split(whereSeparator: \.isWhitespace).count
      }
    }

    public enum Action: Equatable, Codable, Sendable {
      case closeButtonTapped
      case backToListButtonTapped
    }

    @Dependency(\.dismiss) var dismiss

    public init() {}

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .closeButtonTapped: .run { _ in await dismiss() }
      case .backToListButtonTapped: .none
      }
    }
  }
}

extension Notes.Path.State {
  /// The note a screen of the stack shows.
  var noteID: Int? {
    if case let .detail(detail) = self { detail.note.id } else { nil }
  }
}

extension AlertState where Action == Notes.Destination.Alert {
  /// Asks to confirm the deletion of `note`.
  public static func deletion(of note: Notes.Note) -> Self {
    AlertState {
      TextState("Delete \"\(note.title)\"?")
    } actions: {
      ButtonState(role: .destructive, action: .confirmDeletion(id: note.id)) { TextState("Delete") }
      ButtonState(role: .cancel) { TextState("Cancel") }
    }
  }
}

extension ConfirmationDialogState where Action == Notes.Destination.Dialog {
  /// Offers to delete every note.
  public static var clearAll: Self {
    ConfirmationDialogState(titleVisibility: .visible) {
      TextState("Clear all notes?")
    } actions: {
      ButtonState(role: .destructive, action: .clearAll) { TextState("Clear all") }
      ButtonState(role: .cancel) { TextState("Cancel") }
    }
  }
}
