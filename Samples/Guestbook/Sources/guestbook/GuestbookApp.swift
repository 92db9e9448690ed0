import Bulkhead
import BulkheadTools
import GuestbookFeature

extension ScriptedApp {
  /// The guestbook as the host's command line runs it: a visitor signs, another starts and
  /// cancels.
  static let guestbook = ScriptedApp(
    "guestbook", summary: "A guestbook whose composer sheet can run in a worker",
    initialState: Guestbook.State(),
    actions: [
      .signButtonTapped, .composer(.nameChanged("Blob")), .composer(.messageChanged("Lovely place!")),
      .composer(.saveButtonTapped), .signButtonTapped, .composer(.cancelButtonTapped),
    ],
    reducer: Guestbook.init)
}
