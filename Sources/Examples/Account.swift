import Bulkhead
import Foundation

/// An account whose profile holds an avatar: a boundary two levels down (`profile.avatar`),
/// for nested placement. The avatar's upload takes an id from the `uuid` dependency and is an
/// effect that sleeps on the clock; the profile and the root each count the uploads they see
/// go by, as parents observe a child's effect actions.
///
/// ```
/// # account.placement: the profile in a worker, its avatar in a worker of the profile's
/// profile
/// profile.avatar
/// ```
public struct Account: Reducer {
  public struct State: Equatable, Codable, Sendable {
    public var profile = Profile.State()
    /// Uploads the root saw, as actions of the avatar's effect.
    public var uploadsSeen = 0
    public init() {}
  }

  public enum Action: Equatable, Codable, Sendable {
    case profile(Profile.Action)
  }

  public init() {}

  public var body: some Reducer<State, Action> {
    Scope(state: \.profile, action: Action.profile) { Profile() }
    Reduce { state, action in
      if case .profile(.avatar(.uploaded)) = action { state.uploadsSeen += 1 }
      return .none
    }
  }

  /// A name and an avatar.
  public struct Profile: Reducer {
    public struct State: Equatable, Codable, Sendable {
      public var name = ""
      public var avatar = Avatar.State()
      /// Uploads the profile saw, after the avatar's own reducer ran them.
      public var uploadsSeen = 0
      public init() {}
    }

    public enum Action: Equatable, Codable, Sendable {
      case nameChanged(String)
      case avatar(Avatar.Action)
    }

    public init() {}

    public var body: some Reducer<State, Action> {
      Scope(state: \.avatar, action: Action.avatar) { Avatar() }
      Reduce { state, action in
        switch action {
        case let .nameChanged(name): state.name = name
        case .avatar(.uploaded): state.uploadsSeen += 1
        case .avatar: break
        }
        return .none
      }
    }
  }

  /// A picture that is edited, then uploaded after a short wait.
  public struct Avatar: Reducer {
    public struct State: Equatable, Codable, Sendable {
      public var edits = 0
      /// How many edits the last upload carried.
      public var uploadedEdits = 0
      public var uploading = 0
      /// The id of the last upload started.
      public var uploadID: UUID?
      public init() {}
    }

    public enum Action: Equatable, Codable, Sendable {
      case edited
      case uploadTapped
      case uploaded(edits: Int)
    }

    @Dependency(\.continuousClock) var clock
    @Dependency(\.uuid) var uuid

    public init() {}

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .edited:
        state.edits += 1
        return .none
      case .uploadTapped:
        state.uploading += 1
        state.uploadID = uuid()
        return .run { [edits = state.edits, clock] send in
          try await clock.sleep(for: .milliseconds(5))
          await send(.uploaded(edits: edits))
        }
      case let .uploaded(edits):
        state.uploading -= 1
        state.uploadedEdits = edits
        return .none
      }
    }
  }
}
