import Bulkhead

/// Decides whether a message may go in the guestbook. It lives with the host (a word list
/// kept there, a service only the host may call): a composer in a worker asks the host.
public struct Moderator: Sendable {
  public var allows: @Sendable (_ message: String) -> Bool

  public init(allows: @escaping @Sendable (_ message: String) -> Bool) {
    self.allows = allows
  }
}

extension DependencyValues {
  public var moderator: Moderator {
    get { self[ModeratorKey.self] }
    set { self[ModeratorKey.self] = newValue }
  }
}

/// Crosses by asking the host: each `allows` a worker calls is answered by the host's moderator.
enum ModeratorKey: CrossingDependencyKey {
  static let liveValue = Moderator { !$0.localizedLowercase.contains("spam") }
  static let testValue = Moderator { _ in true }

  static func answer(_ message: String, with moderator: Moderator) -> Bool { moderator.allows(message) }
  static func asking(_ ask: @escaping @Sendable (String) -> Bool) -> Moderator { Moderator(allows: ask) }
}
