import Bulkhead

/// A profile with an edit-form sheet whose save runs an effect against an API client.
public struct ProfileEditor: Reducer {
  public struct State: Equatable, Codable, Sendable {
    public var editForm: EditForm.State?
    public var name: String
    public var email: String
    public init(name: String, email: String, editForm: EditForm.State? = nil) {
      self.name = name
      self.email = email
      self.editForm = editForm
    }
  }

  public enum Action: Equatable, Codable, Sendable {
    case editForm(EditForm.Action)
    case editButtonTapped
  }

  public init() {}

  public var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .editForm(.saveResponse(.success)):
        if let form = state.editForm {
          state.name = form.name
          state.email = form.email
        }
        state.editForm = nil
        return .none
      case .editForm:
        return .none
      case .editButtonTapped:
        state.editForm = EditForm.State(name: state.name, email: state.email)
        return .none
      }
    }
    .ifLet(\.editForm, action: Action.editForm) { EditForm() }
  }

  /// The sheet: two fields and a save button.
  public struct EditForm: Reducer, Sendable {
    public struct State: Equatable, Codable, Sendable {
      public var name: String
      public var email: String
      public var isSaving = false
      public init(name: String, email: String) {
        self.name = name
        self.email = email
      }
    }

    public enum Action: Equatable, Codable, Sendable {
      case nameChanged(String)
      case emailChanged(String)
      case saveButtonTapped
      case saveResponse(SaveResult)
    }

    /// The outcome of a save, with the error's description on failure.
    public enum SaveResult: Equatable, Codable, Sendable {
      case success
      case failure(String)
    }

    @Dependency(\.apiClient) var apiClient

    public init() {}

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case let .nameChanged(name):
        state.name = name
        return .none
      case let .emailChanged(email):
        state.email = email
        return .none
      case .saveButtonTapped:
        state.isSaving = true
        return .run { [name = state.name, email = state.email] send in
          try await apiClient.updateProfile(name, email)
          await send(.saveResponse(.success))
        } catch: { error, send in
          await send(.saveResponse(.failure("\(error)")))
        }
      case .saveResponse:
        state.isSaving = false
        return .none
      }
    }
  }
}

/// The server the profile is saved to.
public struct APIClient: Sendable {
  public var updateProfile: @Sendable (_ name: String, _ email: String) async throws -> Void
  public init(updateProfile: @escaping @Sendable (String, String) async throws -> Void) {
    self.updateProfile = updateProfile
  }
}

extension DependencyValues {
  public var apiClient: APIClient {
    get { self[APIClientKey.self] }
    set { self[APIClientKey.self] = newValue }
  }
}

private enum APIClientKey: DependencyKey {
  static let liveValue = APIClient { _, _ in }
  /// Saves nowhere, as the example's live client does.
  static let testValue = liveValue
}
