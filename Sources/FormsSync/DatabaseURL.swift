import Foundation

/// A libpq connection URL (`postgresql://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=MODE`), read
/// from `--database` or `FORMSCTL_DATABASE_URL`. Its password is never written anywhere: the
/// description leaves it out.
public struct DatabaseURL: Sendable, CustomStringConvertible {
  /// libpq's `sslmode`.
  public enum TLSMode: String, Sendable, CaseIterable {
    case disable, allow, prefer, require
    case verifyCA = "verify-ca"
    case verifyFull = "verify-full"
  }

  public var host: String
  public var port: Int
  public var user: String
  public var password: String?
  public var database: String
  public var tls: TLSMode
  /// `sslrootcert`: the certificates that verify the server (verify-ca, verify-full).
  public var rootCertificate: String?

  public init(_ text: String) throws(SyncError) {
    guard let components = URLComponents(string: text), let scheme = components.scheme,
      ["postgres", "postgresql"].contains(scheme)
    else {
      throw SyncError.badURL("the database URL must look like postgresql://USER:PASSWORD@HOST:PORT/DATABASE")
    }
    guard let user = components.user.flatMap({ $0.removingPercentEncoding }), !user.isEmpty else {
      throw SyncError.badURL("the database URL names no user (postgresql://USER@HOST/DATABASE)")
    }
    self.user = user
    password = components.password.flatMap { $0.removingPercentEncoding }
    host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
    port = components.port ?? 5432
    let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
    database = path.removingPercentEncoding.flatMap { $0.isEmpty ? nil : $0 } ?? user
    tls = .prefer
    for item in components.queryItems ?? [] {
      switch item.name {
      case "sslmode":
        guard let mode = item.value.flatMap(TLSMode.init) else {
          throw SyncError.badURL(
            "sslmode=\(item.value ?? ""): expected one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        tls = mode
      case "sslrootcert": rootCertificate = item.value
      case "application_name", "connect_timeout": continue
      default:
        throw SyncError.badURL(
          "\(item.name): a URL parameter formsctl does not know (it reads sslmode and sslrootcert)")
      }
    }
  }

  /// The URL without its password.
  public var description: String { "postgresql://\(user)@\(host):\(port)/\(database)" }
}
