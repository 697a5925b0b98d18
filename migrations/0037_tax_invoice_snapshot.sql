-- An issued invoice keeps what it said when first read (docs/tax.md, Invoices).
ALTER TABLE `tax_invoices` ADD `snapshot` text;