import CSystem

#if canImport(Glibc)
  import Glibc
#endif

/// One message on a connection: a kind that the layer above gives meaning to, and bytes.
package struct Frame: Equatable, Sendable {
  package var kind: UInt8
  package var payload: [UInt8]

  package init(kind: UInt8, payload: [UInt8]) {
    self.kind = kind
    self.payload = payload
  }

  /// Bytes on the wire before the payload: a little-endian 32-bit payload length, the kind,
  /// a little-endian 16-bit check of those two (the low half of their CRC-32C), and a
  /// little-endian CRC-32C of the kind and the payload.
  ///
  /// The header has a check of its own so that a damaged length is found before the reader
  /// waits for bytes that are not coming.
  package static let headerSize = 11

  /// The checksum of this frame's kind and payload as it is sent.
  package var checksum: UInt32 {
    var kind = kind
    let crc = bulkhead_crc32c(0, &kind, 1)
    return payload.withUnsafeBytes { bulkhead_crc32c(crc, $0.baseAddress, $0.count) }
  }

  /// The check of a header with these length and kind.
  static func headerCheck(length: UInt32, kind: UInt8) -> UInt16 {
    var header: (UInt32, UInt8) = (length.littleEndian, kind)
    return UInt16(truncatingIfNeeded: withUnsafeBytes(of: &header) { bulkhead_crc32c(0, $0.baseAddress, 5) })
  }
}

/// Frames over a socket: length-prefixed, checksummed, bounded in size, correct under partial
/// reads and writes. A frame that is too large, cut short, or whose bytes do not match its
/// checksum (damaged on the way) is an error, after which the connection is unusable and
/// should be dropped; other connections are unaffected.
///
/// ```swift
/// let connection = FramedConnection(socket)
/// try connection.send([Frame(kind: 1, payload: bytes)])
/// while let frame = try connection.receive() { ... }
/// ```
package final class FramedConnection {
  package let socket: UnixSocket
  /// The largest payload accepted from the peer.
  package let maximumPayload: Int
  /// How many bytes the read buffer starts with, once the first read needs one.
  package let bufferCapacity: Int

  /// Empty until the first read: a connection only written to (the writing half of a
  /// `SocketActorSystem`) never holds one.
  private var buffer: [UInt8] = []
  private var start = 0
  private var end = 0
  private var outgoing: [UInt8] = []

  /// A connection over `socket` that accepts payloads up to `maximumPayload` bytes and reads
  /// into a buffer of `bufferCapacity` bytes, which grows for a larger frame.
  package init(_ socket: UnixSocket, maximumPayload: Int = 16 << 20, bufferCapacity: Int = 64 << 10) {
    self.socket = socket
    self.maximumPayload = maximumPayload
    self.bufferCapacity = bufferCapacity
  }

  /// Sends one frame.
  package func send(_ frame: Frame) throws(TransportError) {
    try send(CollectionOfOne(frame))
  }

  /// Sends `frames` in one write: many small frames cost one system call. After a send
  /// timeout (`setSendTimeout(milliseconds:)`) part of a frame may have gone, so the socket
  /// is shut down and the error thrown: the peer sees the end, not a torn frame followed by
  /// more.
  package func send(_ frames: some Collection<Frame>) throws(TransportError) {
    outgoing.removeAll(keepingCapacity: true)
    for frame in frames { Self.append(frame, to: &outgoing) }
    do {
      try outgoing.withUnsafeBytes { bytes in
        Result { () throws(TransportError) in try socket.write(bytes) }
      }.get()
    } catch {
      if case .timedOut = error { socket.shutdown() }
      throw error
    }
  }

  /// Makes a send to a peer that reads nothing fail with `TransportError.timedOut` after
  /// `milliseconds` instead of blocking for ever (nil: for ever). See `send(_:)`.
  package func setSendTimeout(milliseconds: Int32?) throws(TransportError) {
    try socket.setSendTimeout(milliseconds: milliseconds)
  }

  /// Appends the wire form of `frame` to `bytes`, with `checksum` for its kind and payload
  /// (the frame's own unless given: a test tool that damages frames keeps the original's).
  package static func append(_ frame: Frame, to bytes: inout [UInt8], checksum: UInt32? = nil) {
    let length = UInt32(frame.payload.count)
    let check = Frame.headerCheck(length: length, kind: frame.kind)
    let crc = checksum ?? frame.checksum
    bytes.append(contentsOf: [
      UInt8(truncatingIfNeeded: length), UInt8(truncatingIfNeeded: length >> 8),
      UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 24), frame.kind,
      UInt8(truncatingIfNeeded: check), UInt8(truncatingIfNeeded: check >> 8),
      UInt8(truncatingIfNeeded: crc), UInt8(truncatingIfNeeded: crc >> 8), UInt8(truncatingIfNeeded: crc >> 16),
      UInt8(truncatingIfNeeded: crc >> 24),
    ])
    bytes.append(contentsOf: frame.payload)
  }

  /// How long `receive()` waits for a whole frame before it fails with
  /// `TransportError.timedOut`; nil waits for ever. Set once for a connection whose every
  /// frame has a deadline: the kernel enforces it on each read (`SO_RCVTIMEO`), so a frame
  /// that arrives in one read costs no extra system call, and a peer that trickles a frame
  /// in pieces is cut off once the whole frame is overdue.
  package private(set) var receiveTimeout: Int32?

  /// Sets `receiveTimeout`.
  package func setReceiveTimeout(milliseconds: Int32?) throws(TransportError) {
    let total = Int(milliseconds ?? 0)
    var limit = timeval(tv_sec: total / 1_000, tv_usec: (total % 1_000) * 1_000)
    guard
      setsockopt(socket.descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size)) == 0
    else { throw .system("setsockopt(SO_RCVTIMEO)", "socket \(socket.descriptor)") }
    receiveTimeout = milliseconds
  }

  /// The next frame, or nil when the peer closed the connection between frames.
  package func receive() throws(TransportError) -> Frame? {
    guard try fill(atLeast: Frame.headerSize, allowingEndOfStream: true) else { return nil }
    if let fault = bufferedHeaderFault { throw fault }
    let length = bufferedLength
    let kind = buffer[start + 4]
    _ = try fill(atLeast: Frame.headerSize + length, allowingEndOfStream: false)
    let expected =
      UInt32(buffer[start + 7]) | UInt32(buffer[start + 8]) << 8 | UInt32(buffer[start + 9]) << 16
      | UInt32(buffer[start + 10]) << 24
    let frame = Frame(kind: kind, payload: Array(buffer[(start + Frame.headerSize)..<(start + Frame.headerSize + length)]))
    start += Frame.headerSize + length
    guard frame.checksum == expected else {
      throw .malformed("a frame of \(length) bytes (kind \(kind)) does not match its checksum: it was damaged on the way")
    }
    return frame
  }

  /// The next frame, as `receive()`, after spinning briefly (`BriefSpin`) for a peer that
  /// usually answers within microseconds.
  package func receiveSoon() throws(TransportError) -> Frame? {
    if isReadyToReceive { return try receive() }
    return try spin.wait(until: readAvailable) { () throws(TransportError) in try receive() }
  }

  /// Buffers whatever the socket holds without waiting for more, so that a reader that spins
  /// checks and reads in one system call; true when something came, or the socket has ended
  /// or failed (kept for the next `receive()`, which reports it).
  package func readAvailable() -> Bool {
    compact()
    reserve(end + 1)
    if buffer.count - end < 4 << 10 { reserve(buffer.count * 2) }
    let read = buffer.withUnsafeMutableBytes { bytes in
      recv(socket.descriptor, bytes.baseAddress! + end, bytes.count - end, Int32(MSG_DONTWAIT))
    }
    if read > 0 {
      end += read
    } else if read == 0 || errno == ECONNRESET {
      hasEnded = true
    } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
      pendingError = .system("recv", "socket \(socket.descriptor)")
    }
    return read >= 0 || hasEnded || pendingError != nil
  }

  /// Whether `receive()` returns or throws without waiting for the socket: a whole frame is
  /// buffered, a buffered header is damaged or too large, or the socket has ended or failed.
  /// For readers that poll the socket before they receive: after `readAvailable()` the socket
  /// may hold nothing more while the buffer holds what `receive()` must see.
  package var isReadyToReceive: Bool {
    if hasBufferedFrame || hasEnded || pendingError != nil { return true }
    return end - start >= Frame.headerSize && bufferedHeaderFault != nil
  }

  private var spin = BriefSpin()
  /// The peer closed the connection, as a read that did not wait found.
  private var hasEnded = false
  /// A read that did not wait failed with this; the next `receive()` throws it.
  private var pendingError: TransportError?

  /// The next frame, as `receive()`, but failing with `TransportError.timedOut` unless all of
  /// it arrives within `milliseconds`: for a first message a peer owes.
  package func receive(within milliseconds: Int32) throws(TransportError) -> Frame? {
    let previous = receiveTimeout
    try setReceiveTimeout(milliseconds: milliseconds)
    defer { try? setReceiveTimeout(milliseconds: previous) }
    return try receive()
  }

  /// Whether a whole frame is buffered already, so that `receive()` returns it without
  /// reading the socket.
  private var hasBufferedFrame: Bool {
    end - start >= Frame.headerSize && end - start >= Frame.headerSize + bufferedLength
  }

  /// What is wrong with the buffered header, if anything: damaged on the way (it does not
  /// match its check), or announcing more than `maximumPayload`. A whole header must be
  /// buffered.
  private var bufferedHeaderFault: TransportError? {
    let length = bufferedLength
    let kind = buffer[start + 4]
    let check = UInt16(buffer[start + 5]) | UInt16(buffer[start + 6]) << 8
    guard check == Frame.headerCheck(length: UInt32(length), kind: kind) else {
      return .malformed("a frame header (length \(length), kind \(kind)) does not match its check: it was damaged on the way")
    }
    return length > maximumPayload ? .frameTooLarge(length: length, limit: maximumPayload) : nil
  }

  /// The payload length in the buffered header.
  private var bufferedLength: Int {
    Int(buffer[start]) | Int(buffer[start + 1]) << 8 | Int(buffer[start + 2]) << 16
      | Int(buffer[start + 3]) << 24
  }

  /// How many bytes read from the socket `receive()` has not returned yet: with no whole
  /// frame buffered, what the peer has sent of its next one.
  package var bufferedByteCount: Int { end - start }

  /// Makes the buffer hold at least `count` bytes; the first one holds `bufferCapacity`.
  private func reserve(_ count: Int) {
    let wanted = buffer.isEmpty ? max(count, bufferCapacity) : count
    if buffer.count < wanted { buffer += [UInt8](repeating: 0, count: wanted - buffer.count) }
  }

  /// Moves the buffered bytes to the front of the buffer.
  private func compact() {
    guard start > 0 else { return }
    buffer.withUnsafeMutableBufferPointer { bytes in
      bytes.baseAddress!.update(from: bytes.baseAddress! + start, count: end - start)
    }
    end -= start
    start = 0
  }

  /// Reads until `count` bytes are buffered; false at a clean end of stream when allowed.
  private func fill(atLeast count: Int, allowingEndOfStream: Bool) throws(TransportError) -> Bool {
    if end - start >= count { return true }
    if let pendingError {
      self.pendingError = nil
      throw pendingError
    }
    compact()
    reserve(count)
    // Read only when a frame comes in pieces: then the whole frame must beat the timeout.
    var firstRead: ContinuousClock.Instant?
    while end < count {
      if let timeout = receiveTimeout {
        let now = ContinuousClock.now
        if let firstRead, firstRead.duration(to: now) > .milliseconds(timeout) { throw timedOut() }
        firstRead = firstRead ?? now
      }
      let read: Int
      do {
        read = try buffer.withUnsafeMutableBytes { bytes in
          Result { () throws(TransportError) in
            try socket.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[end...]))
          }
        }.get()
      } catch .timedOut {
        throw timedOut()
      }
      if read == 0 {
        if allowingEndOfStream && end == 0 { return false }
        throw .truncatedFrame(received: end, expected: count)
      }
      end += read
    }
    return true
  }

  private func timedOut() -> TransportError {
    .timedOut(path: "socket \(socket.descriptor)", milliseconds: receiveTimeout ?? 0)
  }
}
