// swift-format-ignore-file
// Generated from schemas/ by `RECORD_SNAPSHOTS=1 swift test --filter BuiltinSchemasTests`; do not edit.

/// The built-in schema descriptors, embedded so `formsctl init` needs no checkout of this repository.
enum BuiltinSchemas {
  static let files: [(path: String, contents: String)] = [
    ("_shared/assumptions.yaml", #"""
# Types shared by forecast@2.0.0 and scenario@1.0.0 (included with `include:`).
description: DCF assumptions, as the valuation model takes them
types:
  assumptions:
    fields:
      revenue: revenue_drivers
      operating: operating_assumptions
      valuation: valuation_assumptions
      lens: {type: enum, values: [base, bull, bear, custom], default: base}
  revenue_drivers:
    fields:
      base_revenue: {type: decimal, min: 0, description: 'last fiscal year revenue, in millions'}
      growth_rates: {type: list, of: {type: number, min: -1, max: 5}, min_items: 1, max_items: 30}
  operating_assumptions:
    fields:
      ebit_margin: {type: number, min: -1, max: 1}
      tax_rate: {type: number, min: 0, max: 1}
      capex_percent: {type: number, min: 0, max: 1, optional: true}
      working_capital_percent: {type: number, min: -1, max: 1, optional: true}
  valuation_assumptions:
    fields:
      discount_rate: {type: number, min: 0, max: 1}
      terminal_growth: {type: number, min: -0.05, max: 0.1}
      shares_outstanding: {type: decimal, min: 0, description: millions of shares}
      net_debt: {type: decimal, optional: true}

"""#),
    ("_shared/forecast-outputs.yaml", #"""
# What a DCF forecast computed (forecast@1.0.0 keeps it as JSON text, forecast@2.0.0 as an object).
description: the outputs of a forecast
types:
  forecast_outputs:
    fields:
      intrinsic_value: number
      upside_percent: number
      cagr_percent: number?
      projections: {type: list, of: projection_year, optional: true, unique: [year]}
  projection_year:
    fields:
      year: {type: integer, min: 1900, max: 2200}
      revenue: number
      free_cash_flow: number

"""#),
    ("acquisition/1.0.0.yaml", #"""
kind: acquisition
version: 1.0.0
title: Acquisition
directory: acquisitions
id: id
timestamps:
  created: created_date
  updated: last_modified_date
fields:
  id: {type: string, pattern: '^ACQ-[0-9]{4}-[0-9]{3}$', description: ACQ-<fiscal year>-<sequence>}
  title: {type: string, min_length: 1, max_length: 200}
  agency: {type: string, min_length: 1, max_length: 120}
  status: {type: enum, values: [planning, solicitation, evaluation, awarded, closed, cancelled], default: planning}
  estimated_value: {type: decimal, min: 0, scale: 2, optional: true}
  contracting_officer: string?
  created_date: datetime
  last_modified_date: datetime
workflow:
  field: status
  transitions:
    planning: [solicitation, cancelled]
    solicitation: [evaluation, cancelled]
    evaluation: [awarded, cancelled]
    awarded: [closed]

"""#),
    ("acquisition/1.1.0.yaml", #"""
kind: acquisition
version: 1.1.0
from: 1.0.0
title: Acquisition
directory: acquisitions
id: id
timestamps:
  created: created_date
  updated: last_modified_date
fields:
  id: {type: string, pattern: '^ACQ-[0-9]{4}-[0-9]{3}$', description: ACQ-<fiscal year>-<sequence>}
  title: {type: string, min_length: 1, max_length: 200}
  agency: {type: string, min_length: 1, max_length: 120}
  status: {type: enum, values: [planning, solicitation, evaluation, awarded, closed, cancelled], default: planning}
  estimated_value: {type: decimal, min: 0, scale: 2, optional: true}
  contracting_officer: {type: string, optional: true, sensitive: true, description: 'the contracting officer named on the award (personal data: stored encrypted)'}
  created_date: datetime
  last_modified_date: datetime
workflow:
  field: status
  transitions:
    planning: [solicitation, cancelled]
    solicitation: [evaluation, cancelled]
    evaluation: [awarded, cancelled]
    awarded: [closed]

"""#),
    ("forecast/1.0.0.yaml", #"""
# The shape of the SwiftData model SavedForecast: assumptions and outputs as JSON strings.
kind: forecast
version: 1.0.0
title: DCF forecast (SwiftData layout)
directory: forecasts
id: id
include: [../_shared/assumptions.yaml, ../_shared/forecast-outputs.yaml]
timestamps:
  created: createdAt
  updated: updatedAt
fields:
  id: uuid
  createdAt: datetime
  updatedAt: datetime
  ticker: {type: string, pattern: '^[A-Z][A-Z.]{0,5}$'}
  companyName: string
  horizonYears: {type: integer, min: 1, max: 30}
  style: {type: string, max_length: 40}
  objective: {type: string, max_length: 200}
  assumptionsJSON: {type: json_string, of: assumptions, description: 'the assumptions object, serialized'}
  outputsJSON: {type: json_string, of: forecast_outputs, description: 'the outputs object, serialized'}
  intrinsicValue: number?
  upsidePercent: number?
  cagrPercent: number?
# The quick-access copies agree with the outputs they copy (the app wrote both; nothing checked them).
derived:
  - {field: intrinsicValue, from: outputsJSON.intrinsic_value}
  - {field: upsidePercent, from: outputsJSON.upside_percent}
  - {field: cagrPercent, from: outputsJSON.cagr_percent}

"""#),
    ("forecast/2.0.0.yaml", #"""
kind: forecast
version: 2.0.0
title: DCF forecast
directory: forecasts
id: id
include: [../_shared/assumptions.yaml, ../_shared/forecast-outputs.yaml]
order: -updated_at      # list shows the most recently updated first, as the app did
timestamps:
  created: created_at
  updated: updated_at
fields:
  id: uuid
  created_at: datetime
  updated_at: datetime
  ticker: {type: string, pattern: '^[A-Z][A-Z.]{0,5}$'}
  company_name: string
  horizon_years: {type: integer, min: 1, max: 30}
  style: {type: string, max_length: 40}
  objective: {type: string, max_length: 200}
  assumptions: assumptions
  outputs: forecast_outputs
from: 1.0.0
changes:
  - rename: {from: createdAt, to: created_at}
  - rename: {from: updatedAt, to: updated_at}
  - rename: {from: companyName, to: company_name}
  - rename: {from: horizonYears, to: horizon_years}
  - convert: {field: assumptionsJSON, to: object}
  - rename: {from: assumptionsJSON, to: assumptions}
  - convert: {field: outputsJSON, to: object}
  - rename: {from: outputsJSON, to: outputs}
  - remove: {field: intrinsicValue}
  - remove: {field: upsidePercent}
  - remove: {field: cagrPercent}

"""#),
    ("form/1.0.0.yaml", #"""
# The shape of the Core Data entity GovernmentFormData, camelCase as it stored it.
kind: form
version: 1.0.0
title: Government form (Core Data layout)
directory: forms
id: id
timestamps:
  created: createdDate
  updated: lastModifiedDate
fields:
  id: uuid
  formType: {type: enum, values: [SF1449, SF33, SF30, SF18, SF26, SF44, DD1155]}
  formNumber: string?
  revision: string?
  status: {type: enum, values: [Draft, InReview, Approved, Rejected], default: Draft}
  createdDate: datetime?
  lastModifiedDate: datetime?
  formData: {type: map, of: any, optional: true}
  metadata: {type: legacy_metadata, optional: true}
  acquisition: {type: string, optional: true, description: the owning acquisition's id}
types:
  legacy_metadata:
    fields:
      createdBy: string?
      agency: string?
      purpose: string?
relations:
  - {field: acquisition, kind: acquisition, on_delete: cascade}
workflow:
  field: status
  transitions:
    Draft: [InReview]
    InReview: [Approved, Rejected]
    Rejected: [Draft]

"""#),
    ("form/2.0.0.yaml", #"""
kind: form
version: 2.0.0
title: Government form
directory: forms
id: id
timestamps:
  created: created_date
  updated: last_modified_date
columns: [id, form_type, form_number, status, acquisition_id, last_modified_date]   # what a list shows
fields:
  id: {type: uuid, immutable: true}
  form_type: {type: enum, values: [SF1449, SF33, SF30, SF18, SF26, SF44, DD1155], immutable_when: 'status == "approved"'}
  form_number: {type: string, optional: true, max_length: 64, immutable_when: 'status == "approved"'}
  revision: {type: string, optional: true, max_length: 32}
  status: {type: enum, values: [draft, in_review, approved, rejected], default: draft}
  created_date: datetime?
  last_modified_date: datetime?
  acquisition_id: {type: string, optional: true, pattern: '^ACQ-[0-9]{4}-[0-9]{3}$'}
  approved_by: string?
  approved_on: date?
  metadata: {type: form_metadata, optional: true}
  # An approved form's contents are fixed; `validate --against REV` reports changes to them.
  fields: {one_of: {by: form_type, cases: {SF1449: sf1449_fields, SF33: sf33_fields, SF30: sf30_fields, SF18: sf18_fields, SF26: sf26_fields, SF44: sf44_fields, DD1155: dd1155_fields}}, optional: true, immutable_when: 'status == "approved"'}
types:
  form_metadata:
    fields:
      created_by: string?
      agency: string?
      purpose: {type: string, optional: true, max_length: 2000}
  line_item:
    fields:
      item_number: {type: string, pattern: '^[0-9]{4}[A-Z]?$', description: 'CLIN, e.g. 0001 or 0001A'}
      description: {type: string, max_length: 500}
      quantity: {type: decimal, min: 0}
      unit: {type: string, max_length: 16}
      unit_price: {type: decimal, min: 0, scale: 2}
  sf1449_fields:   # Solicitation/Contract/Order for Commercial Products and Services
    fields:
      solicitation_number: string?
      contract_number: string?
      award_date: date?
      offer_due_date: datetime?
      issued_by: string?
      naics_code: {type: string, pattern: '^[0-9]{6}$', optional: true}
      items: {type: list, of: line_item, unique: [item_number], optional: true}
      total_amount: {type: decimal, min: 0, scale: 2, optional: true}
  sf33_fields:     # Solicitation, Offer and Award
    fields:
      solicitation_number: string?
      offer_due_date: datetime?
      sealed_bid: {type: boolean, default: false}
      issued_by: string?
      items: {type: list, of: line_item, unique: [item_number], optional: true}
  sf30_fields:     # Amendment of Solicitation / Modification of Contract
    fields:
      amendment_number: string?
      modification_number: string?
      contract_number: string?
      effective_date: date?
      description_of_change: {type: string, optional: true, max_length: 4000}
  sf18_fields:     # Request for Quotations
    fields:
      request_number: string?
      quote_due_date: date?
      delivery_by: date?
      items: {type: list, of: line_item, unique: [item_number], optional: true}
  sf26_fields:     # Award/Contract
    fields:
      contract_number: string?
      award_date: date?
      total_amount: {type: decimal, min: 0, scale: 2, optional: true}
  sf44_fields:     # Purchase Order-Invoice-Voucher
    fields:
      order_number: string?
      vendor_name: string?
      delivery_date: date?
      total_amount: {type: decimal, min: 0, max: 10000, scale: 2, optional: true}
  dd1155_fields:   # Order for Supplies or Services
    fields:
      order_number: string?
      contract_number: string?
      delivery_date: date?
      items: {type: list, of: line_item, unique: [item_number], optional: true}
      total_amount: {type: decimal, min: 0, scale: 2, optional: true}
relations:
  - {field: acquisition_id, kind: acquisition, on_delete: cascade}
workflow:
  field: status
  transitions:
    draft: [in_review]
    in_review: [approved, rejected]
    rejected: [draft]
rules:
  - when: 'status != "draft"'
    require: 'form_number exists and acquisition_id exists and fields exists'
    message: a form in review or beyond has a form number, an acquisition and its fields
  - when: 'status == "approved"'
    require: 'approved_by exists and approved_on exists'
    message: an approved form names who approved it and when
  - when: 'status != "draft" and form_type == "SF1449"'
    require: 'fields.solicitation_number exists and fields.items exists'
    message: an SF 1449 in review needs its solicitation number and items
  - when: 'status != "draft" and form_type == "SF30"'
    require: 'fields.effective_date exists'
    message: an SF 30 in review needs its effective date
  - when: 'status != "draft" and form_type == "SF26"'
    require: 'fields.contract_number exists and fields.award_date exists'
    message: an SF 26 in review needs its contract number and award date
from: 1.0.0
changes:
  - rename: {from: formType, to: form_type}
  - rename: {from: formNumber, to: form_number, if_present: true}
  - map: {field: status, values: {Draft: draft, InReview: in_review, Approved: approved, Rejected: rejected}}
  - rename: {from: createdDate, to: created_date, if_present: true}
  - rename: {from: lastModifiedDate, to: last_modified_date, if_present: true}
  - rename: {from: acquisition, to: acquisition_id, if_present: true}
  - move: {from: metadata.createdBy, to: metadata.created_by, if_present: true}
  - rename: {from: formData, to: fields, if_present: true}

"""#),
    ("purchase-order/1.0.0.yaml", #"""
kind: purchase-order
version: 1.0.0
title: Purchase order
directory: purchase-orders
id: purchase_order_number
timestamps:
  created: issue_date
  updated: last_updated
fields:
  purchase_order_number: {type: string, pattern: '^[0-9A-Z-]{1,32}$'}
  status: {type: enum, values: [open, partially_received, received, closed, cancelled], default: open}
  issue_date: datetime
  last_updated: datetime
  preferred_delivery_date: date?
  delivery_note: {type: string, optional: true, max_length: 2000}
  items: {type: list, of: item, unique: [product_item_id]}
  invoices: {type: list, of: invoice, unique: [invoice_number], optional: true}
types:
  item:
    timestamps: {updated: last_updated}
    fields:
      product_item_id: {type: integer, min: 1}
      quantity: {type: integer, min: 0}
      last_updated: datetime
  invoice:
    timestamps: {created: created, updated: last_updated}
    fields:
      invoice_number: string
      received_status: {type: integer, min: 0, max: 3}
      created: datetime?
      last_updated: datetime
      receipts: {type: list, of: receipt, unique: [product_item_id]}
  receipt:
    timestamps: {updated: last_updated}
    fields:
      product_item_id: integer
      received_quantity: {type: integer, min: 0}
      last_updated: datetime
workflow:
  field: status
  transitions:
    open: [partially_received, received, cancelled]
    partially_received: [received, cancelled]
    received: [closed]
rules:
  - when: 'preferred_delivery_date exists'
    require: 'preferred_delivery_date >= issue_date'
    message: the preferred delivery date cannot be before the issue date

"""#),
    ("purchase-order/1.1.0.yaml", #"""
kind: purchase-order
version: 1.1.0
title: Purchase order
from: 1.0.0    # adds optional fields and a defaulted currency: migrated without `changes:`
directory: purchase-orders
id: purchase_order_number
timestamps:
  created: issue_date
  updated: last_updated
order: -last_updated    # list shows the most recently updated first, as the app did
# People may change the delivery note and date and add items; the rest comes from the server (import).
editable: [delivery_note, preferred_delivery_date, 'items[+]']
fields:
  purchase_order_number: {type: string, pattern: '^[0-9A-Z-]{1,32}$'}
  status: {type: enum, values: [open, partially_received, received, closed, cancelled], default: open}
  issue_date: datetime
  last_updated: datetime
  preferred_delivery_date: date?
  delivery_note: {type: string, optional: true, max_length: 2000}
  currency: {type: string, default: USD, pattern: '^[A-Z]{3}$'}
  acquisition_id: {type: string, optional: true, pattern: '^ACQ-[0-9]{4}-[0-9]{3}$'}
  items: {type: list, of: item, unique: [product_item_id]}
  invoices: {type: list, of: invoice, unique: [invoice_number], optional: true}
relations:
  - {field: acquisition_id, kind: acquisition, on_delete: nullify}
types:
  item:
    timestamps: {updated: last_updated}
    fields:
      product_item_id: {type: integer, min: 1}
      quantity: {type: integer, min: 0}
      unit_price: {type: decimal, min: 0, scale: 2, optional: true}
      last_updated: datetime
  invoice:
    timestamps: {created: created, updated: last_updated}
    fields:
      invoice_number: string
      received_status: {type: integer, min: 0, max: 3}
      created: datetime?
      last_updated: datetime
      receipts: {type: list, of: receipt, unique: [product_item_id]}
  receipt:
    timestamps: {updated: last_updated}
    fields:
      product_item_id: integer
      received_quantity: {type: integer, min: 0}
      last_updated: datetime
workflow:
  field: status
  transitions:
    open: [partially_received, received, cancelled]
    partially_received: [received, cancelled]
    received: [closed]
rules:
  - when: 'preferred_delivery_date exists'
    require: 'preferred_delivery_date >= issue_date'
    message: the preferred delivery date cannot be before the issue date
attachments:
  quote:
    types: [application/pdf]
    max_size: 20MB
  receipt:
    types: [application/pdf, image/png, image/jpeg]
    max_size: 10MB

"""#),
    ("scenario/1.0.0.yaml", #"""
kind: scenario
version: 1.0.0
title: Valuation scenario
directory: scenarios
id: id
include: ../_shared/assumptions.yaml
order: -created_at      # list shows the newest first, as the app did
timestamps:
  created: created_at
fields:
  id: uuid
  created_at: datetime
  name: {type: string, min_length: 1, max_length: 120}
  ticker: {type: string, pattern: '^[A-Z][A-Z.]{0,5}$'}
  assumptions: assumptions
  forecast_id: uuid?
  notes: {type: string, optional: true, max_length: 4000}
relations:
  - {field: forecast_id, kind: forecast, on_delete: nullify}

"""#),
  ]
}
