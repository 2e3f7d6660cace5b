package sicontract

// golden is the SI contract written by hand from the Scheduler Interface
// spec (newest version): every message, field (number, type, cardinality),
// enum value, reserved number and name, the service's methods and the
// si_secret extension. Names are relative to package si.v1.
//
// Line forms:
//
//	message <Message>
//	field <Message>.<field> = <number> [repeated] <type>
//	enum <Enum> <VALUE> = <number>
//	reserved <Message or Enum> <number>  |  reserved <Message or Enum> "<name>"
//	rpc <Service>.<Method> [stream] <Input> -> [stream] <Output>
//	extend <Extendee> <name> = <number> <type>
//	syntax <syntax>  |  package <package>
const golden = `
syntax proto3
package si.v1

extend google.protobuf.FieldOptions si_secret = 1059 bool

rpc Scheduler.RegisterResourceManager RegisterResourceManagerRequest -> RegisterResourceManagerResponse
rpc Scheduler.UpdateAllocation stream AllocationRequest -> stream AllocationResponse
rpc Scheduler.UpdateApplication stream ApplicationRequest -> stream ApplicationResponse
rpc Scheduler.UpdateNode stream NodeRequest -> stream NodeResponse

message RegisterResourceManagerRequest
field RegisterResourceManagerRequest.rmID = 1 string
field RegisterResourceManagerRequest.version = 2 string
field RegisterResourceManagerRequest.policyGroup = 3 string
field RegisterResourceManagerRequest.buildInfo = 4 map<string,string>
field RegisterResourceManagerRequest.config = 5 string
field RegisterResourceManagerRequest.extraConfig = 6 map<string,string>

message RegisterResourceManagerResponse

message AllocationRequest
field AllocationRequest.releases = 2 AllocationReleasesRequest
field AllocationRequest.rmID = 3 string
field AllocationRequest.allocations = 4 repeated Allocation
reserved AllocationRequest 1
reserved AllocationRequest "asks"

message ApplicationRequest
field ApplicationRequest.new = 1 repeated AddApplicationRequest
field ApplicationRequest.remove = 2 repeated RemoveApplicationRequest
field ApplicationRequest.rmID = 3 string

message NodeRequest
field NodeRequest.nodes = 1 repeated NodeInfo
field NodeRequest.rmID = 2 string

message AllocationResponse
field AllocationResponse.new = 1 repeated Allocation
field AllocationResponse.released = 2 repeated AllocationRelease
field AllocationResponse.rejectedAllocations = 5 repeated RejectedAllocation
reserved AllocationResponse 3
reserved AllocationResponse "releasedAsks"
reserved AllocationResponse 4
reserved AllocationResponse "rejected"

message ApplicationResponse
field ApplicationResponse.rejected = 1 repeated RejectedApplication
field ApplicationResponse.accepted = 2 repeated AcceptedApplication
field ApplicationResponse.updated = 3 repeated UpdatedApplication

message NodeResponse
field NodeResponse.rejected = 1 repeated RejectedNode
field NodeResponse.accepted = 2 repeated AcceptedNode

message UpdatedApplication
field UpdatedApplication.applicationID = 1 string
field UpdatedApplication.state = 2 string
field UpdatedApplication.stateTransitionTimestamp = 3 int64
field UpdatedApplication.message = 4 string

message RejectedApplication
field RejectedApplication.applicationID = 1 string
field RejectedApplication.reason = 2 string

message AcceptedApplication
field AcceptedApplication.applicationID = 1 string

message RejectedNode
field RejectedNode.nodeID = 1 string
field RejectedNode.reason = 2 string

message AcceptedNode
field AcceptedNode.nodeID = 1 string

message Resource
field Resource.resources = 1 map<string,Quantity>

message Quantity
field Quantity.value = 1 int64

message PreemptionPolicy
field PreemptionPolicy.allowPreemptSelf = 1 bool
field PreemptionPolicy.allowPreemptOther = 2 bool

message AddApplicationRequest
field AddApplicationRequest.applicationID = 1 string
field AddApplicationRequest.queueName = 2 string
field AddApplicationRequest.partitionName = 3 string
field AddApplicationRequest.ugi = 4 UserGroupInformation
field AddApplicationRequest.tags = 5 map<string,string>
field AddApplicationRequest.executionTimeoutMilliSeconds = 6 int64
field AddApplicationRequest.placeholderAsk = 7 Resource
field AddApplicationRequest.gangSchedulingStyle = 8 string

message RemoveApplicationRequest
field RemoveApplicationRequest.applicationID = 1 string
field RemoveApplicationRequest.partitionName = 2 string

message UserGroupInformation
field UserGroupInformation.user = 1 string
field UserGroupInformation.groups = 2 repeated string

message Allocation
field Allocation.allocationKey = 1 string
field Allocation.allocationTags = 2 map<string,string>
field Allocation.resourcePerAlloc = 5 Resource
field Allocation.priority = 6 int32
field Allocation.nodeID = 8 string
field Allocation.applicationID = 9 string
field Allocation.partitionName = 10 string
field Allocation.taskGroupName = 11 string
field Allocation.placeholder = 12 bool
field Allocation.originator = 14 bool
field Allocation.preemptionPolicy = 15 PreemptionPolicy
reserved Allocation 7
reserved Allocation "queueName"
reserved Allocation 3
reserved Allocation "UUID"
reserved Allocation 13
reserved Allocation "allocationID"

message AllocationReleasesRequest
field AllocationReleasesRequest.allocationsToRelease = 1 repeated AllocationRelease
reserved AllocationReleasesRequest 2
reserved AllocationReleasesRequest "allocationAsksToRelease"

enum TerminationType UNKNOWN_TERMINATION_TYPE = 0
enum TerminationType STOPPED_BY_RM = 1
enum TerminationType TIMEOUT = 2
enum TerminationType PREEMPTED_BY_SCHEDULER = 3
enum TerminationType PLACEHOLDER_REPLACED = 4

message AllocationRelease
field AllocationRelease.partitionName = 1 string
field AllocationRelease.applicationID = 2 string
field AllocationRelease.terminationType = 4 TerminationType
field AllocationRelease.message = 5 string
field AllocationRelease.allocationKey = 6 string
reserved AllocationRelease 3
reserved AllocationRelease "UUID"
reserved AllocationRelease 7
reserved AllocationRelease "allocationID"

message NodeInfo
enum NodeInfo.ActionFromRM UNKNOWN_ACTION_FROM_RM = 0
enum NodeInfo.ActionFromRM CREATE = 1
enum NodeInfo.ActionFromRM UPDATE = 2
enum NodeInfo.ActionFromRM DRAIN_NODE = 3
enum NodeInfo.ActionFromRM DECOMISSION = 4
enum NodeInfo.ActionFromRM DRAIN_TO_SCHEDULABLE = 5
enum NodeInfo.ActionFromRM CREATE_DRAIN = 6
field NodeInfo.nodeID = 1 string
field NodeInfo.action = 2 NodeInfo.ActionFromRM
field NodeInfo.attributes = 3 map<string,string>
field NodeInfo.schedulableResource = 4 Resource
field NodeInfo.occupiedResource = 5 Resource
reserved NodeInfo 6
reserved NodeInfo "existingAllocations"

message RejectedAllocation
field RejectedAllocation.allocationKey = 1 string
field RejectedAllocation.applicationID = 2 string
field RejectedAllocation.reason = 3 string

message PredicatesArgs
field PredicatesArgs.allocationKey = 1 string
field PredicatesArgs.nodeID = 2 string
field PredicatesArgs.allocate = 3 bool

message PreemptionPredicatesArgs
field PreemptionPredicatesArgs.allocationKey = 1 string
field PreemptionPredicatesArgs.nodeID = 2 string
field PreemptionPredicatesArgs.preemptAllocationKeys = 3 repeated string
field PreemptionPredicatesArgs.startIndex = 4 int32

message PreemptionPredicatesResponse
field PreemptionPredicatesResponse.success = 1 bool
field PreemptionPredicatesResponse.index = 2 int32

message UpdateContainerSchedulingStateRequest
enum UpdateContainerSchedulingStateRequest.SchedulingState UNKNOWN_SCHEDULING_STATE = 0
enum UpdateContainerSchedulingStateRequest.SchedulingState SKIPPED = 1
enum UpdateContainerSchedulingStateRequest.SchedulingState SCHEDULED = 2
enum UpdateContainerSchedulingStateRequest.SchedulingState RESERVED = 3
enum UpdateContainerSchedulingStateRequest.SchedulingState FAILED = 4
field UpdateContainerSchedulingStateRequest.applicationID = 1 string
field UpdateContainerSchedulingStateRequest.allocationKey = 2 string
field UpdateContainerSchedulingStateRequest.state = 3 UpdateContainerSchedulingStateRequest.SchedulingState
field UpdateContainerSchedulingStateRequest.reason = 4 string

message UpdateConfigurationRequest
field UpdateConfigurationRequest.rmID = 2 string
field UpdateConfigurationRequest.policyGroup = 3 string
field UpdateConfigurationRequest.config = 4 string
field UpdateConfigurationRequest.extraConfig = 5 map<string,string>
reserved UpdateConfigurationRequest 1
reserved UpdateConfigurationRequest "configs"

message EventRecord
enum EventRecord.Type UNKNOWN_EVENTRECORD_TYPE = 0
enum EventRecord.Type REQUEST = 1
enum EventRecord.Type APP = 2
enum EventRecord.Type NODE = 3
enum EventRecord.Type QUEUE = 4
enum EventRecord.Type USERGROUP = 5
enum EventRecord.ChangeType NONE = 0
enum EventRecord.ChangeType SET = 1
enum EventRecord.ChangeType ADD = 2
enum EventRecord.ChangeType REMOVE = 3
enum EventRecord.ChangeDetail DETAILS_NONE = 0
enum EventRecord.ChangeDetail REQUEST_CANCEL = 100
enum EventRecord.ChangeDetail REQUEST_ALLOC = 101
enum EventRecord.ChangeDetail REQUEST_TIMEOUT = 102
enum EventRecord.ChangeDetail APP_ALLOC = 200
enum EventRecord.ChangeDetail APP_REQUEST = 201
enum EventRecord.ChangeDetail APP_REJECT = 202
enum EventRecord.ChangeDetail APP_NEW = 203
enum EventRecord.ChangeDetail APP_ACCEPTED = 204
enum EventRecord.ChangeDetail APP_RUNNING = 206
enum EventRecord.ChangeDetail APP_COMPLETING = 207
enum EventRecord.ChangeDetail APP_COMPLETED = 208
enum EventRecord.ChangeDetail APP_FAILING = 209
enum EventRecord.ChangeDetail APP_FAILED = 210
enum EventRecord.ChangeDetail APP_RESUMING = 211
enum EventRecord.ChangeDetail APP_EXPIRED = 212
enum EventRecord.ChangeDetail APP_CANNOTRUN_QUEUE = 213
enum EventRecord.ChangeDetail APP_RUNNABLE_QUEUE = 214
enum EventRecord.ChangeDetail APP_CANNOTRUN_QUOTA = 215
enum EventRecord.ChangeDetail APP_RUNNABLE_QUOTA = 216
enum EventRecord.ChangeDetail NODE_DECOMISSION = 300
enum EventRecord.ChangeDetail NODE_SCHEDULABLE = 302
enum EventRecord.ChangeDetail NODE_ALLOC = 303
enum EventRecord.ChangeDetail NODE_CAPACITY = 304
enum EventRecord.ChangeDetail NODE_OCCUPIED = 305
enum EventRecord.ChangeDetail NODE_RESERVATION = 306
enum EventRecord.ChangeDetail QUEUE_CONFIG = 400
enum EventRecord.ChangeDetail QUEUE_DYNAMIC = 401
enum EventRecord.ChangeDetail QUEUE_TYPE = 402
enum EventRecord.ChangeDetail QUEUE_MAX = 403
enum EventRecord.ChangeDetail QUEUE_GUARANTEED = 404
enum EventRecord.ChangeDetail QUEUE_APP = 405
enum EventRecord.ChangeDetail QUEUE_ALLOC = 406
enum EventRecord.ChangeDetail ALLOC_CANCEL = 500
enum EventRecord.ChangeDetail ALLOC_PREEMPT = 501
enum EventRecord.ChangeDetail ALLOC_TIMEOUT = 502
enum EventRecord.ChangeDetail ALLOC_REPLACED = 503
enum EventRecord.ChangeDetail ALLOC_NODEREMOVED = 504
enum EventRecord.ChangeDetail UG_USER_LIMIT = 600
enum EventRecord.ChangeDetail UG_GROUP_LIMIT = 601
enum EventRecord.ChangeDetail UG_APP_LINK = 602
enum EventRecord.ChangeDetail UG_USER_RESOURCE = 603
enum EventRecord.ChangeDetail UG_GROUP_RESOURCE = 604
reserved EventRecord.ChangeDetail 205
reserved EventRecord.ChangeDetail 301
reserved EventRecord.ChangeDetail "APP_STARTING"
reserved EventRecord.ChangeDetail "NODE_READY"
field EventRecord.type = 1 EventRecord.Type
field EventRecord.objectID = 2 string
field EventRecord.message = 5 string
field EventRecord.timestampNano = 6 int64
field EventRecord.eventChangeType = 7 EventRecord.ChangeType
field EventRecord.eventChangeDetail = 8 EventRecord.ChangeDetail
field EventRecord.referenceID = 9 string
field EventRecord.resource = 10 Resource
reserved EventRecord 3
reserved EventRecord "groupID"
reserved EventRecord 4
reserved EventRecord "reason"
`
