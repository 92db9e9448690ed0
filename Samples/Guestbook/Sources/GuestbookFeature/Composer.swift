import Bulkhead
import Foundation

/// The sheet where a visitor signs: a name, a message, and a save that takes a moment (the
/// guestbook's server) before it tells the guestbook what was signed.
public struct Composer: Reducer {
  public struct State: Equatable, Codable, Sendable {
    public var name: String
    public var message: String
    public var isSaving: Bool
    /// Why the moderator turned the message down, if it did.
    public var rejection: String?

    public init(name: String = "", message: String = "", isSaving: Bool = false, rejection: String? = nil) {
      self.name = name
      self.message = message
      self.isSaving = isSaving
      self.rejection = rejection
    }
  }

  public enum Action: Equatable, Codable, Sendable {
    case nameChanged(String)
    case messageChanged(String)
    case saveButtonTapped
    case cancelButtonTapped
    case delegate(Delegate)

    /// What the composer tells the guestbook.
    public enum Delegate: Equatable, Codable, Sendable {
      case signed(Entry)
      case cancelled
    }
  }

  /// How long the guestbook's server takes to store an entry.
  public static let saveDuration = Duration.milliseconds(300)

  @Dependency(\.uuid) var uuid
  @Dependency(\.date) var date
  @Dependency(\.continuousClock) var clock
  @Dependency(\.moderator) var moderator

  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .nameChanged(name):
      state.name = name
      return .none
    case let .messageChanged(message):
      state.message = message
      return .none
    case .saveButtonTapped:
      guard !state.isSaving else { return .none }
      guard moderator.allows(state.message) else {
        state.rejection = "The moderator turned this message down."
        return .none
      }
      state.rejection = nil
      state.isSaving = true
      let entry = Entry(id: uuid(), name: state.name, message: state.message, signedAt: date.now)
      return .run { [clock] send in
        try await clock.sleep(for: Self.saveDuration)
        await send(.delegate(.signed(entry)))
      }
    case .cancelButtonTapped:
      return .send(.delegate(.cancelled))
    case .delegate:
      return .none
    }
  }
}
