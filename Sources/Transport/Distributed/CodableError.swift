/// An error that a distributed method throws and its caller catches as itself: the actor
/// system encodes it, and the caller's side decodes it by its type's name. Errors of other
/// types reach the caller as `RemoteCallError.remoteThrew(type:description:)`.
///
/// Only types that conform are ever decoded, so a peer cannot make this process build a
/// value of any other type.
///
/// ```swift
/// struct OutOfStock: CodableError, Equatable { let item: String }
/// // on the caller's side
/// catch let error as OutOfStock { … }
/// ```
package protocol CodableError: Error, Codable, Sendable {}
