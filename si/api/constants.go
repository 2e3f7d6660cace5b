package api

// Well-known node attributes. Scheduler Interface attributes carry the "si/"
// prefix.
const (
	ARCH                = "si/arch"           // CPU architecture of the node
	HostName            = "si/hostname"       // host name of the node
	RackName            = "si/rackname"       // rack the node is in
	OS                  = "si/os"             // operating system of the node
	InstanceType        = "si/instance-type"  // instance (machine) type of the node
	FailureDomainZone   = "si/zone"           // failure domain: zone
	FailureDomainRegion = "si/region"         // failure domain: region
	LocalImages         = "si/local-images"   // container images present on the node
	NodePartition       = "si/node-partition" // partition the node belongs to
)

// Well-known allocation attributes.
const (
	ApplicationID  = "si/application-id"  // application the allocation belongs to
	ContainerImage = "si/container-image" // container image of the allocation
	ContainerPorts = "si/container-ports" // container ports of the allocation
)

// Allocation tags are key-value pairs whose key starts with a domain,
// optionally followed by a group, each ending in "/", then the name, for
// example "kubernetes.io/meta/namespace".
const (
	// Domains
	DomainK8s              = "kubernetes.io/"                // Kubernetes domain
	DomainYuniKorn         = "yunikorn.apache.org/"          // YuniKorn domain
	DomainYuniKornInternal = "internal.yunikorn.apache.org/" // YuniKorn internal domain

	// Groups
	GroupMeta       = "meta/"       // object metadata
	GroupLabel      = "label/"      // object labels
	GroupAnnotation = "annotation/" // object annotations

	// Keys
	KeyPodName      = "podName"      // name of the pod
	KeyNamespace    = "namespace"    // namespace of the pod
	KeyRequiredNode = "requiredNode" // node the allocation must be placed on

	// Pods
	CreationTime     = "creationTime" // creation time of the pod
	Foreign          = "foreign"      // allocation made outside the scheduler
	AllocTypeStatic  = "static"       // foreign allocation type: static pod
	AllocTypeDefault = "default"      // foreign allocation type: any other pod
)

// Resource names and application tags shared by the core and the shims.
const (
	Memory                            = "memory"                       // memory resource name
	CPU                               = "vcore"                        // CPU resource name
	AppTagNamespaceResourceQuota      = "namespace.resourcequota"      // app tag: namespace quota
	AppTagNamespaceResourceGuaranteed = "namespace.resourceguaranteed" // app tag: namespace guaranteed resource
	AppTagNamespaceResourceMaxApps    = "namespace.resourcemaxapps"    // app tag: namespace max applications
	AppTagCreateForce                 = "application.create.force"     // app tag: force creation of the application
)
