import Foundation

/// A system error number as a value (`EIO`, `ENOSPC`, `EACCES`...), as swift-system's `Errno`:
/// what `StoreError.io` carries, so an app can match the cause rather than read a sentence.
public struct Errno: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public let rawValue: Int32

  public init(rawValue: Int32) { self.rawValue = rawValue }
  public init(_ code: Int32) { rawValue = code }

  /// The system's sentence for it (`No space left on device`).
  public var description: String { String(cString: strerror(rawValue)) }

  public static let ioError = Errno(EIO)
  public static let noSpace = Errno(ENOSPC)
  public static let permissionDenied = Errno(EACCES)
  public static let notFound = Errno(ENOENT)
}
