import FormsCore
import FormsStore
import FormsTestSupport
import Foundation

/// The repository this test file is in.
let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().path

/// A copy of the example store under `dir`, its descriptors read from this repository.
func exampleStore(in dir: String) throws -> String {
  let store = dir + "/store"
  try FileManager.default.copyItem(atPath: repository + "/examples/acquisitions", toPath: store)
  let manifest = try readFile(store + "/formsctl.yaml")
  let encryption = manifest.components(separatedBy: "encryption:").dropFirst().first.map { "encryption:" + $0 } ?? ""
  try writeFile("formsctl: 1\nschemas: \(repository)/schemas\n" + encryption, to: store + "/formsctl.yaml")
  return store
}

/// The example store opened as `formsctl mcp` opens it; `identity` loads the demo key holder's identity.
func openStore(_ root: String, identity: Bool = false) throws -> Store {
  var configuration = Store.Configuration()
  configuration.user = "Assistant Test <test@example.org>"
  configuration.lockWait = 5
  let store = try Store.open(at: root, configuration: configuration)
  guard identity else { return store }
  let key = root + "/../demo-identity"
  try FileManager.default.copyItem(atPath: repository + "/examples/demo-identity", toPath: key)
  try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
  let keyring = try Keyring.load(store.layout, registry: store.registry, environment: ["FORMSCTL_IDENTITY": key])
  return Store(layout: store.layout, registry: store.registry, configuration: configuration, keyring: keyring)
}

/// The audit log's records of changes (not reads), newest first.
func changes(_ store: Store) throws -> [AuditRecord] {
  try AuditLog.query(store.layout, AuditLog.Query()).records
}

/// The JSON object `text` parses to.
func parsed(_ text: String) throws -> JSONValue { try JSONParser().parse(Array(text.utf8)) }

/// An object from members.
func args(_ members: KeyValuePairs<String, JSONValue>) -> JSONObject { JSONObject(members) }

/// A draft SF 30 for acquisition `acquisition`.
func sf30(acquisition: String) -> JSONValue {
  .object(
    JSONObject([
      "form_type": .string("SF30"), "form_number": .string("SF 30"), "acquisition_id": .string(acquisition),
      "fields": .object(
        JSONObject(["modification_number": .string("P00001"), "effective_date": .string("2026-12-01")])),
    ]))
}

/// An example form in draft (a DD 1155 of ACQ-2026-001).
let draftForm = "22e8dfd4-5323-52b8-9003-08076893ad38"
