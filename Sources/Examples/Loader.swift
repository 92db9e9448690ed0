import Bulkhead

/// `Scope` on enum state: a screen that is unloaded, loading, or loaded with a child feature.
///
/// Unlike the seed, the loaded data arrives as a parent action that moves the state to
/// `.loaded`; the seed's version sends a child action while the state is still `.loading`,
/// which is the very misuse that `Scope` warns about.
public struct Loader: Reducer, Sendable {
  public enum State: Equatable, Codable, Sendable {
    case unloaded
    case loading
    case loaded(Document.State)
  }

  public enum Action: Equatable, Codable, Sendable {
    case child(Document.Action)
    case load
    case dataLoaded(String)
  }

  @Dependency(\.documentLoader) var loadDocument

  public init() {}

  public var body: some Reducer<State, Action> {
    Scope(state: State.loaded, action: Action.child) { Document() }
    Reduce { state, action in
      switch action {
      case .child:
        return .none
      case .load:
        state = .loading
        return .run { send in
          await send(.dataLoaded(try await loadDocument()))
        }
      case let .dataLoaded(text):
        state = .loaded(Document.State(text: text))
        return .none
      }
    }
  }

  /// The loaded document, which the user can edit.
  public struct Document: Reducer {
    public struct State: Equatable, Codable, Sendable {
      public var text: String
      public init(text: String) { self.text = text }
    }
    public enum Action: Equatable, Codable, Sendable {
      case textChanged(String)
      case cleared
    }
    public init() {}
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case let .textChanged(text): state.text = text
      case .cleared: state.text = ""
      }
      return .none
    }
  }
}

/// Loads the document's text.
public struct DocumentLoader: Sendable {
  public var load: @Sendable () async throws -> String
  public init(load: @escaping @Sendable () async throws -> String) { self.load = load }
  public func callAsFunction() async throws -> String { try await load() }
}

extension DependencyValues {
  public var documentLoader: DocumentLoader {
    get { self[DocumentLoaderKey.self] }
    set { self[DocumentLoaderKey.self] = newValue }
  }
}

private enum DocumentLoaderKey: DependencyKey {
  static let liveValue = DocumentLoader { "Hello from the document store" }
  /// The example's live loader reads no store, so tests may use it too.
  static let testValue = liveValue
}
