import Bulkhead
